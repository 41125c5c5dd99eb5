//! Where the kill tests' kills fall: a small xorshift generator, seeded from the clock or
//! replayed from an environment variable, its seed printed so a failing run can be
//! replayed.

/// A small xorshift generator.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded from `variable` when it holds a number (a replay), else from
    /// the clock; prints `seed: <variable>=<seed>`.
    pub fn new(variable: &str) -> Self {
        let seed = std::env::var(variable)
            .ok()
            .and_then(|seed| seed.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |since| since.as_nanos() as u64)
                    | 1
            });
        println!("seed: {variable}={seed}");
        Rng(seed)
    }

    /// A number below `bound` (0 for a bound of 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound.max(1)
    }
}
