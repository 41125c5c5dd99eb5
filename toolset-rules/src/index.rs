//! A perfect hash of a set's tool names, built in constant evaluation: the tool a name
//! denotes is found with one hash, one table read and one string comparison, whatever the
//! number of tools, where a `match` on strings compares against the names in turn.
//!
//! The names are only known to constant evaluation (`#[tool(name = "...")]` is read by
//! another macro invocation than `toolset!`), so the table is built by a `const fn`; the
//! macro, which knows how many tools there are, picks the table's sizes.
//!
//! The scheme is hash-and-displace: every name hashes to a bucket and two values `f1`,
//! `f2`; the buckets, largest first, each get a displacement `(d1, d2)` that sends all their
//! names to free slots `(f1 + d1 * f2 + d2) % slots`. A lookup hashes once, reads its
//! bucket's displacement, and checks the one name in its slot. The table has at least
//! twice as many slots as names, which keeps the search (run by the compiler, which is
//! slow at it) to a few tries per bucket.

/// How many names share a bucket on average.
const NAMES_PER_BUCKET: usize = 2;

/// An empty slot.
const EMPTY: u16 = u16::MAX;

/// The most tools a set can index: displacements and slots are `u16`s.
pub const MAX_NAMES: usize = 1 << 15;

/// How many buckets an index of `names` names has.
pub const fn bucket_count(names: usize) -> usize {
    if names == 0 {
        1
    } else {
        names.div_ceil(NAMES_PER_BUCKET)
    }
}

/// How many slots an index of `names` names has: a power of two at least twice `names`.
pub const fn slot_count(names: usize) -> usize {
    (names * 2).next_power_of_two()
}

/// The perfect hash of a set's names with `B` buckets ([`bucket_count`]) and `S` slots
/// ([`slot_count`]).
pub struct NameIndex<const B: usize, const S: usize> {
    seed: u64,
    /// Per bucket, `(d1, d2)`.
    displacements: [[u16; 2]; B],
    /// Per slot, the position of the name stored there, or `EMPTY`.
    slots: [u16; S],
}

/// A name's hash, split three ways.
#[derive(Clone, Copy)]
struct Hashes {
    bucket: usize,
    f1: usize,
    f2: usize,
}

/// A word-at-a-time hash: each 8-byte word is mixed in with a folded multiply (the full
/// 128-bit product's halves xored, as foldhash and wyhash do, so high bits reach low ones
/// too), finished with splitmix64's mixer. A `const fn`, so the table is built and read
/// with one function.
const fn hash(seed: u64, name: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = seed ^ (name.len() as u64).wrapping_mul(K);
    let mut i = 0;
    while i < name.len() {
        let mut word = [0u8; 8];
        let mut j = 0;
        while j < 8 && i + j < name.len() {
            word[j] = name[i + j];
            j += 1;
        }
        h = folded_multiply(h ^ u64::from_le_bytes(word), K);
        i += 8;
    }
    // splitmix64's finalizer: every input bit reaches every output bit.
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

const fn folded_multiply(a: u64, b: u64) -> u64 {
    let product = (a as u128) * (b as u128);
    (product as u64) ^ ((product >> 64) as u64)
}

const fn hashes<const B: usize, const S: usize>(seed: u64, name: &[u8]) -> Hashes {
    let h = hash(seed, name);
    Hashes {
        bucket: ((h & 0xffff_ffff) % B as u64) as usize,
        f1: ((h >> 32) as usize) % S,
        f2: ((h >> 16) as usize) % S,
    }
}

const fn slot<const S: usize>(hashes: Hashes, [d1, d2]: [u16; 2]) -> usize {
    (hashes.f1 + (d1 as usize) * hashes.f2 + d2 as usize) % S
}

impl<const B: usize, const S: usize> NameIndex<B, S> {
    /// The index of `names`. A name repeated is indexed once, at its first position: the
    /// set's duplicate-name check is what reports it.
    ///
    /// # Panics
    ///
    /// In constant evaluation (so as a compile error) when `B` and `S` are not
    /// [`bucket_count`] and [`slot_count`] of `N`, or `N` is over [`MAX_NAMES`], or (never
    /// seen) no seed of 64 gives a perfect hash.
    pub const fn new<const N: usize>(names: &[&str; N]) -> Self {
        assert!(N <= MAX_NAMES, "a tool set indexes at most 32768 tools");
        assert!(B == bucket_count(N) && S == slot_count(N));
        // A seed fails with odds of about one in a thousand; 64 in a row do not happen.
        let mut seed = 0;
        while seed < 64 {
            if let Some(index) = Self::try_seed(seed, names) {
                return index;
            }
            seed += 1;
        }
        panic!("no perfect hash of these tool names was found; please report the set's names")
    }

    /// The index built with hash `seed`, if every bucket finds a displacement.
    const fn try_seed<const N: usize>(seed: u64, names: &[&str; N]) -> Option<Self> {
        // Every name hashed once.
        let mut hashed = [Hashes {
            bucket: 0,
            f1: 0,
            f2: 0,
        }; N];
        let mut sizes = [0usize; B];
        let mut i = 0;
        while i < N {
            hashed[i] = hashes::<B, S>(seed, names[i].as_bytes());
            sizes[hashed[i].bucket] += 1;
            i += 1;
        }
        // The names grouped by bucket (a counting sort): bucket `b` is
        // `members[starts[b]..starts[b] + sizes[b]]`.
        let mut starts = [0usize; B];
        let mut b = 1;
        while b < B {
            starts[b] = starts[b - 1] + sizes[b - 1];
            b += 1;
        }
        let mut filled = [0usize; B];
        let mut members = [0usize; N];
        i = 0;
        while i < N {
            let b = hashed[i].bucket;
            members[starts[b] + filled[b]] = i;
            filled[b] += 1;
            i += 1;
        }
        // A repeated name (always in its first's bucket: equal names hash alike) is left
        // out of the table.
        let mut repeat = [false; N];
        b = 0;
        while b < B {
            let mut m = 1;
            while m < sizes[b] {
                let mut e = 0;
                while e < m {
                    let (earlier, this) = (members[starts[b] + e], members[starts[b] + m]);
                    if crate::same_name::same_name(names[earlier], names[this]) {
                        repeat[this] = true;
                    } else if hashed[earlier].f1 == hashed[this].f1
                        && hashed[earlier].f2 == hashed[this].f2
                    {
                        // No displacement can part these two: try the next seed.
                        return None;
                    }
                    e += 1;
                }
                m += 1;
            }
            b += 1;
        }
        // The buckets, largest first (a counting sort by size).
        let mut largest = 0;
        b = 0;
        while b < B {
            if sizes[b] > largest {
                largest = sizes[b];
            }
            b += 1;
        }
        let mut count_of_size = [0usize; N];
        b = 0;
        while b < B {
            if sizes[b] > 0 {
                count_of_size[sizes[b] - 1] += 1;
            }
            b += 1;
        }
        let mut order = [0usize; B];
        let mut next_of_size = [0usize; N];
        let mut offset = 0;
        let mut size = largest;
        while size > 0 {
            next_of_size[size - 1] = offset;
            offset += count_of_size[size - 1];
            size -= 1;
        }
        let buckets_used = offset;
        b = 0;
        while b < B {
            if sizes[b] > 0 {
                order[next_of_size[sizes[b] - 1]] = b;
                next_of_size[sizes[b] - 1] += 1;
            }
            b += 1;
        }

        let mut index = NameIndex {
            seed,
            displacements: [[0; 2]; B],
            slots: [EMPTY; S],
        };
        let mut k = 0;
        while k < buckets_used {
            let b = order[k];
            let bucket = (starts[b], sizes[b]);
            let mut d1 = 0;
            let mut placed = false;
            'search: while d1 < S && d1 <= u16::MAX as usize {
                let mut d2 = 0;
                while d2 < S && d2 <= u16::MAX as usize {
                    let displacement = [d1 as u16, d2 as u16];
                    if index.claim(&hashed, &members, &repeat, bucket, displacement) {
                        index.displacements[b] = displacement;
                        placed = true;
                        break 'search;
                    }
                    d2 += 1;
                }
                d1 += 1;
            }
            if !placed {
                return None;
            }
            k += 1;
        }
        Some(index)
    }

    /// Writes the bucket's names into their slots under `displacement`, if those are free
    /// and distinct; else leaves the table as it was and returns false.
    const fn claim<const N: usize>(
        &mut self,
        hashed: &[Hashes; N],
        members: &[usize; N],
        repeat: &[bool; N],
        (start, count): (usize, usize),
        displacement: [u16; 2],
    ) -> bool {
        let mut m = 0;
        while m < count {
            let position = members[start + m];
            if !repeat[position] {
                let at = slot::<S>(hashed[position], displacement);
                if self.slots[at] != EMPTY {
                    // Undo this bucket's earlier claims.
                    let mut e = 0;
                    while e < m {
                        let earlier = members[start + e];
                        if !repeat[earlier] {
                            self.slots[slot::<S>(hashed[earlier], displacement)] = EMPTY;
                        }
                        e += 1;
                    }
                    return false;
                }
                self.slots[at] = position as u16;
            }
            m += 1;
        }
        true
    }

    /// The position in `names` (the names the index was built from, in their order) of
    /// `name`, if it is one of them.
    #[inline]
    pub fn find(&self, name: &str, names: &[&str]) -> Option<usize> {
        // No tool name is longer (the grammar); a longer one is not worth hashing.
        if name.len() > crate::MAX_NAME_LEN {
            return None;
        }
        let h = hashes::<B, S>(self.seed, name.as_bytes());
        let position = usize::from(self.slots[slot::<S>(h, self.displacements[h.bucket])]);
        match names.get(position) {
            Some(candidate) if *candidate == name => Some(position),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;
    use alloc::vec::Vec;

    macro_rules! index {
        ($names:expr) => {{
            const NAMES: &[&str] = &$names;
            const N: usize = NAMES.len();
            const ARRAY: [&str; N] = {
                let mut array = [""; N];
                let mut i = 0;
                while i < N {
                    array[i] = NAMES[i];
                    i += 1;
                }
                array
            };
            const INDEX: NameIndex<{ bucket_count(N) }, { slot_count(N) }> = NameIndex::new(&ARRAY);
            (INDEX, NAMES)
        }};
    }

    #[test]
    fn every_name_is_found_at_its_position() {
        let (index, names) = index!(["search", "archive", "set_due_date", "send_reply"]);
        for (position, name) in names.iter().enumerate() {
            assert_eq!(index.find(name, names), Some(position), "{name}");
        }
    }

    #[test]
    fn names_that_share_a_length_or_a_prefix_are_told_apart() {
        let (index, names) = index!([
            "ab",
            "ba",
            "aa",
            "bb",
            "tool_a",
            "tool_b",
            "tool-a",
            "tool_",
            "tool",
            "t",
            "search_inbox_by_free_text_and_sender_with_a_long_name",
            "search_inbox_by_free_text_and_sender_with_a_long_namf",
        ]);
        for (position, name) in names.iter().enumerate() {
            assert_eq!(index.find(name, names), Some(position), "{name}");
        }
    }

    #[test]
    fn a_name_not_in_the_set_is_not_found() {
        let (index, names) = index!(["search", "archive"]);
        for stranger in ["", "searc", "search ", "Search", "archivf", "x"] {
            assert_eq!(index.find(stranger, names), None, "{stranger:?}");
        }
        assert_eq!(index.find(&"s".repeat(10_000), names), None);
    }

    #[test]
    fn one_name_and_a_repeated_name_are_indexed() {
        let (index, names) = index!(["only"]);
        assert_eq!(index.find("only", names), Some(0));
        // A repeat (which `toolset!` rejects with its own error) does not stop the build.
        let (index, names) = index!(["a", "b", "a"]);
        assert_eq!(index.find("a", names), Some(0));
        assert_eq!(index.find("b", names), Some(1));
    }

    /// `tool_0000` … `tool_0999`, built by the compiler.
    const THOUSAND_BYTES: [[u8; 9]; 1000] = {
        let mut names = [*b"tool_0000"; 1000];
        let mut i = 0;
        while i < 1000 {
            names[i][5] = b'0' + (i / 1000 % 10) as u8;
            names[i][6] = b'0' + (i / 100 % 10) as u8;
            names[i][7] = b'0' + (i / 10 % 10) as u8;
            names[i][8] = b'0' + (i % 10) as u8;
            i += 1;
        }
        names
    };
    const THOUSAND: [&str; 1000] = {
        let mut names = [""; 1000];
        let mut i = 0;
        while i < 1000 {
            names[i] = match core::str::from_utf8(&THOUSAND_BYTES[i]) {
                Ok(name) => name,
                Err(_) => "",
            };
            i += 1;
        }
        names
    };
    /// Built in constant evaluation, as `toolset!` builds it: a thousand names stay well
    /// inside the compiler's budget for a constant.
    static THOUSAND_INDEX: NameIndex<{ bucket_count(1000) }, { slot_count(1000) }> =
        NameIndex::new(&THOUSAND);

    #[test]
    fn a_thousand_names_are_indexed_by_the_compiler() {
        for (position, name) in THOUSAND.iter().enumerate() {
            assert_eq!(THOUSAND_INDEX.find(name, &THOUSAND), Some(position));
        }
        assert_eq!(THOUSAND_INDEX.find("tool_1000", &THOUSAND), None);
    }

    #[test]
    fn a_thousand_names_are_all_found() {
        // Built at run time here (the sizes are the same const functions).
        let owned: Vec<String> = (0..1000).map(|i| format!("tool_{i:04}")).collect();
        let names: Vec<&str> = owned.iter().map(String::as_str).collect();
        let array: [&str; 1000] = names.clone().try_into().unwrap_or([""; 1000]);
        let index: NameIndex<{ bucket_count(1000) }, { slot_count(1000) }> = NameIndex::new(&array);
        for (position, name) in names.iter().enumerate() {
            assert_eq!(index.find(name, &names), Some(position));
        }
        assert_eq!(index.find("tool_1000", &names), None);
    }
}
