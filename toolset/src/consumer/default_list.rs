//! A set's default tool list ([`tool_list`]): a fresh conversation's request's list,
//! composed by [`Request`](crate::request::Request) and kept in the set's render cache. Apart from
//! `list.rs`, since a request renders its lists with `list.rs`'s fragments.

use super::{Format, Order};
use crate::policy::Policy;
use crate::request::Request;
use crate::set::ToolSet;
use crate::tier::Autonomy;

/// The default tool list of the set `T`, rendered for `format` in `order`: the list of a
/// fresh conversation's request under the set's default policy, that is
/// [`Request::new`](crate::request::Request::new)`(&Policy::new(..)).format(format).tool_list()` (sorted by
/// name for [`Order::ByName`]) at any autonomy but [`Autonomy::Off`], where a request
/// offers no local tool search. Tools declared `deferred` are left to tool search: the
/// list carries the search tool, and Anthropic and OpenAI Responses list the deferred
/// tools marked `defer_loading: true`.
///
/// Rendered on first use and cached in the set's render cache; every later call returns
/// the same `&'static str`, byte for byte. A conversation with a policy, activated tools
/// or history uses a [`Request`](crate::request::Request), built from the same cached fragments.
pub fn tool_list<T: ToolSet>(format: Format, order: Order) -> &'static str {
    T::render_cache().get_or_render(format, order, || {
        // Autonomy decides what runs, not what is offered, but for the local search, which
        // runs in the gate and so is not offered at `Off`: any other level gives this list.
        let policy = Policy::<T>::new(Autonomy::ExternalReversible);
        Request::new(&policy)
            .format(format)
            .compose(order == Order::ByName)
    })
}
