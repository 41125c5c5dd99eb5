//! [`forward_store!`](crate::forward_store): a test's store of its own that changes a few
//! methods of [`Store`](toolset::store::Store) (to fail, or to skip a record) sends the
//! others on to a store it holds, each named once in the list.

/// Methods of [`Store`](toolset::store::Store) sent on to the store in a field of `self`:
/// `forward_store!(inner: insert, get, resolve)` inside an `impl Store`, with `inner` the
/// field (`0` for a tuple struct) and the list the methods not written by hand.
#[macro_export]
macro_rules! forward_store {
    ($field:tt: $($method:ident),* $(,)?) => {
        $( $crate::forward_store!(@one $field $method); )*
    };
    (@one $f:tt insert) => {
        fn insert(&self, proposal: &::toolset::Proposal) -> Result<(), ::toolset::store::StoreError> {
            self.$f.insert(proposal)
        }
    };
    (@one $f:tt get) => {
        fn get(
            &self,
            id: &::toolset::approval::ProposalId,
        ) -> Result<Option<::toolset::store::Stored>, ::toolset::store::StoreError> {
            self.$f.get(id)
        }
    };
    (@one $f:tt resolve) => {
        fn resolve(
            &self,
            id: &::toolset::approval::ProposalId,
            resolution: &::toolset::store::Resolution,
        ) -> Result<::toolset::store::ResolveOutcome, ::toolset::store::StoreError> {
            self.$f.resolve(id, resolution)
        }
    };
    (@one $f:tt decline) => {
        fn decline(
            &self,
            id: &::toolset::approval::ProposalId,
            at_ms: u64,
            answer: &::toolset::ToolOutput,
        ) -> Result<::toolset::store::ResolveOutcome, ::toolset::store::StoreError> {
            self.$f.decline(id, at_ms, answer)
        }
    };
    (@one $f:tt usage) => {
        fn usage(
            &self,
            owner: &str,
            now_ms: u64,
        ) -> Result<::toolset::store::Usage, ::toolset::store::StoreError> {
            self.$f.usage(owner, now_ms)
        }
    };
    (@one $f:tt expired) => {
        fn expired(
            &self,
            now_ms: u64,
        ) -> Result<Vec<::toolset::approval::ProposalId>, ::toolset::store::StoreError> {
            self.$f.expired(now_ms)
        }
    };
    (@one $f:tt forget) => {
        fn forget(
            &self,
            id: &::toolset::approval::ProposalId,
        ) -> Result<bool, ::toolset::store::StoreError> {
            self.$f.forget(id)
        }
    };
    (@one $f:tt waiting) => {
        fn waiting(
            &self,
        ) -> Result<Vec<::toolset::approval::ProposalId>, ::toolset::store::StoreError> {
            self.$f.waiting()
        }
    };
    (@one $f:tt start) => {
        fn start(
            &self,
            start: &::toolset::store::CallStart,
        ) -> Result<::toolset::store::StartOutcome, ::toolset::store::StoreError> {
            self.$f.start(start)
        }
    };
    (@one $f:tt end) => {
        fn end(
            &self,
            key: &str,
            end: &::toolset::store::CallEnd,
        ) -> Result<::toolset::store::EndOutcome, ::toolset::store::StoreError> {
            self.$f.end(key, end)
        }
    };
    (@one $f:tt entry) => {
        fn entry(
            &self,
            key: &str,
        ) -> Result<Option<::toolset::store::JournalEntry>, ::toolset::store::StoreError> {
            self.$f.entry(key)
        }
    };
    (@one $f:tt in_doubt) => {
        fn in_doubt(
            &self,
        ) -> Result<Vec<::toolset::store::JournalEntry>, ::toolset::store::StoreError> {
            self.$f.in_doubt()
        }
    };
    (@one $f:tt rerun) => {
        fn rerun(&self, key: &str, attempts: u32) -> Result<bool, ::toolset::store::StoreError> {
            self.$f.rerun(key, attempts)
        }
    };
    (@one $f:tt undelivered) => {
        fn undelivered(
            &self,
        ) -> Result<Vec<::toolset::store::JournalEntry>, ::toolset::store::StoreError> {
            self.$f.undelivered()
        }
    };
    (@one $f:tt mark_delivered) => {
        fn mark_delivered(&self, key: &str, at_ms: u64) -> Result<bool, ::toolset::store::StoreError> {
            self.$f.mark_delivered(key, at_ms)
        }
    };
    (@one $f:tt load_run) => {
        fn load_run(
            &self,
            id: &::toolset::store::RunId,
        ) -> Result<Option<::toolset::store::StoredRun>, ::toolset::store::StoreError> {
            self.$f.load_run(id)
        }
    };
    (@one $f:tt save_run) => {
        fn save_run(
            &self,
            run: &::toolset::store::StoredRun,
            expected: Option<u64>,
        ) -> Result<::toolset::store::SaveRunOutcome, ::toolset::store::StoreError> {
            self.$f.save_run(run, expected)
        }
    };
    (@one $f:tt newest_generation) => {
        fn newest_generation(
            &self,
            id: &::toolset::store::RunId,
        ) -> Result<Option<u64>, ::toolset::store::StoreError> {
            self.$f.newest_generation(id)
        }
    };
    (@one $f:tt pins) => {
        fn pins(
            &self,
            source: &str,
        ) -> Result<Vec<::toolset::store::Pin>, ::toolset::store::StoreError> {
            self.$f.pins(source)
        }
    };
    (@one $f:tt pin) => {
        fn pin(
            &self,
            source: &str,
            pin: &::toolset::store::Pin,
            replacing: Option<&str>,
        ) -> Result<bool, ::toolset::store::StoreError> {
            self.$f.pin(source, pin, replacing)
        }
    };
}
