//! A tool raising its own tier for particular arguments (`#[tool(escalate = path)]`): the
//! gate runs the escalation, takes the higher of it and the declared tier, and the
//! proposal says why. It can only raise.

use proptest::prelude::*;
use toolset::approval::Approved;
use toolset::prelude::*;
use toolset::{
    Approvals, Autonomy, Escalation, MemoryStore, Policy, Tier, ToolCall, ToolContext, tool,
    toolset,
};

/// What ran, so a test can see that a withheld call did not.
#[derive(Default)]
pub struct Bank {
    sent_cents: Vec<u64>,
    adjusted: Vec<u8>,
}

/// Above this, a transfer needs a human at any autonomy.
const LIMIT_CENTS: u64 = 100_000;

fn large_transfer(args: &transfer) -> Option<Escalation> {
    (args.cents > LIMIT_CENTS).then(|| {
        Escalation::to(
            Tier::Irreversible,
            format!("a transfer above {LIMIT_CENTS} cents"),
        )
    })
}

/// Send money to a saved payee; small transfers can be reversed by the bank.
#[tool(tier = "reversible", escalate = large_transfer)]
pub async fn transfer(bank: &mut Bank, cents: u64) {
    bank.sent_cents.push(cents);
}

const TIERS: [Tier; 4] = Tier::ALL;

/// Whatever tier the arguments name, lower than declared or not.
fn any_tier(args: &adjust) -> Option<Escalation> {
    let tier = TIERS[usize::from(args.level) % TIERS.len()];
    Some(Escalation::to(tier, format!("level {}", args.level)))
}

/// Adjust a setting; its escalation answers any tier, including lower ones.
#[tool(tier = "external_reversible", escalate = any_tier)]
pub async fn adjust(bank: &mut Bank, level: u8) {
    bank.adjusted.push(level);
}

toolset! {
    /// The bank's tools.
    pub BankTools<Bank> = [transfer, adjust];
}

const AUTONOMIES: [Autonomy; 4] = [
    Autonomy::Off,
    Autonomy::ReadOnly,
    Autonomy::Reversible,
    Autonomy::ExternalReversible,
];

fn call(name: &str, arguments: String) -> ToolCall {
    ToolCall::new("call_1", name, arguments)
}

/// Gates and applies one call at `autonomy`; what ran and the plan's proposals.
fn gate_and_apply(autonomy: Autonomy, call: ToolCall) -> (Bank, Vec<toolset::Proposal>) {
    let plan = BankTools::gate([call], autonomy).expect("a valid program");
    let proposals = plan.proposals().to_vec();
    let mut bank = Bank::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    runtime.block_on(BankTools::apply(&mut bank, &ToolContext::default(), plan));
    (bank, proposals)
}

proptest! {
    #[test]
    fn an_escalated_call_is_proposed_never_run_at_every_autonomy_below_its_raised_tier(
        autonomy in proptest::sample::select(AUTONOMIES.to_vec()),
        cents in prop_oneof![0..=LIMIT_CENTS, LIMIT_CENTS + 1..=u64::MAX / 2],
    ) {
        let (bank, proposals) =
            gate_and_apply(autonomy, call("transfer", format!("{{\"cents\":{cents}}}")));
        let raised = cents > LIMIT_CENTS;
        let tier = if raised { Tier::Irreversible } else { Tier::Reversible };
        if autonomy.allows(tier) {
            prop_assert_eq!(bank.sent_cents, vec![cents]);
            prop_assert!(proposals.is_empty());
        } else {
            prop_assert!(bank.sent_cents.is_empty(), "a withheld transfer ran");
            prop_assert_eq!(proposals.len(), 1);
            prop_assert_eq!(proposals[0].tier(), tier);
            let reason = raised.then(|| format!("a transfer above {LIMIT_CENTS} cents"));
            prop_assert_eq!(proposals[0].escalated_because(), reason.as_deref());
        }
    }

    #[test]
    fn escalation_can_never_lower_a_tier(
        autonomy in proptest::sample::select(AUTONOMIES.to_vec()),
        level in any::<u8>(),
    ) {
        let (bank, proposals) =
            gate_and_apply(autonomy, call("adjust", format!("{{\"level\":{level}}}")));
        let escalated = TIERS[usize::from(level) % TIERS.len()];
        let effective = escalated.max(Tier::ExternalReversible);
        prop_assert_eq!(autonomy.allows(effective), bank.adjusted == vec![level]);
        if let Some(proposal) = proposals.first() {
            prop_assert_eq!(proposal.tier(), effective, "the proposal records the higher tier");
            // A reason is shown only when the tier was raised.
            prop_assert_eq!(
                proposal.escalated_because().is_some(),
                escalated > Tier::ExternalReversible
            );
        }
    }
}

#[tokio::test]
async fn an_approved_escalated_call_runs_once_at_its_raised_tier() {
    let plan = BankTools::gate(
        [call("transfer", "{\"cents\":250000}".to_owned())],
        Autonomy::ExternalReversible,
    )
    .expect("a valid program");
    let proposal = plan.proposals()[0].clone();
    assert_eq!(proposal.tier(), Tier::Irreversible);
    let approvals = Approvals::new(MemoryStore::new());
    approvals.submit(&proposal).expect("stored");
    let policy = Policy::<BankTools>::new(Autonomy::ExternalReversible);
    let Approved::Run(call) = approvals
        .approve(
            &proposal.reviewed(),
            &toolset::request::Request::new(&policy),
        )
        .expect("approved")
    else {
        panic!("transfer has a handler");
    };
    let mut bank = Bank::default();
    call.apply(&mut bank, &ToolContext::default()).await;
    assert_eq!(bank.sent_cents, vec![250_000]);
    assert!(
        approvals
            .approve(
                &proposal.reviewed(),
                &toolset::request::Request::new(&policy)
            )
            .is_err(),
        "the approval is used up"
    );
}
