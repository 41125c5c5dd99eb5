//! The hook through which a host lends the console its state: only the host knows where
//! its state lives, and an approved call runs against it.

use crate::context::ToolContext;
use crate::set::ToolSet;
use std::future::Future;
use std::ops::DerefMut;
use std::sync::Arc;

/// How the console reaches the host's state to run an approved call (or a re-run): the
/// hook a host supplies, since only it knows where its state lives.
///
/// Implemented for `tokio::sync::Mutex<State>` (hold the state in one, in an `Arc` shared
/// with the rest of the host); implement it for whatever else holds the state.
pub trait ConsoleState<T: ToolSet>: Send + Sync + 'static {
    /// The state, lent for one approved call.
    type Guard<'a>: DerefMut<Target = T::State> + Send
    where
        Self: 'a;

    /// Lends the state: the console holds it while the call runs.
    fn lock(&self) -> impl Future<Output = Self::Guard<'_>> + Send;

    /// The context an approved call runs with (a default one unless the host says).
    fn context(&self) -> ToolContext {
        ToolContext::default()
    }
}

impl<T: ToolSet> ConsoleState<T> for tokio::sync::Mutex<T::State>
where
    T::State: Send,
{
    type Guard<'a> = tokio::sync::MutexGuard<'a, T::State>;

    fn lock(&self) -> impl Future<Output = Self::Guard<'_>> + Send {
        tokio::sync::Mutex::lock(self)
    }
}

impl<T: ToolSet, C: ConsoleState<T>> ConsoleState<T> for Arc<C> {
    type Guard<'a> = C::Guard<'a>;

    fn lock(&self) -> impl Future<Output = Self::Guard<'_>> + Send {
        (**self).lock()
    }

    fn context(&self) -> ToolContext {
        (**self).context()
    }
}
