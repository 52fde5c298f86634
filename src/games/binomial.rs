//! Binomial coefficients, the one table every index scheme ranks its sets of identical pieces
//! with (combinadic or colex ranks: a set of squares `s_0 < s_1 < ..` ranks as
//! `sum_i C(s_i, i + 1)`).

/// The largest `n` in the table: every square of the largest board (xiangqi's 90 points).
pub const MAX_N: usize = 90;
/// The largest `k` in the table: the largest group of identical pieces (five dark chess
/// soldiers).
pub const MAX_K: usize = 5;

/// `BINOMIAL[k][n] = C(n, k)`, computed at compile time (`C(90, 5)` fits a `u32`).
pub const BINOMIAL: [[u32; MAX_N + 1]; MAX_K + 1] = table();

const fn table() -> [[u32; MAX_N + 1]; MAX_K + 1] {
    let mut c = [[0u32; MAX_N + 1]; MAX_K + 1];
    let mut n = 0;
    while n <= MAX_N {
        c[0][n] = 1;
        let mut k = 1;
        while k <= MAX_K {
            c[k][n] = if n == 0 { 0 } else { c[k - 1][n - 1] + c[k][n - 1] };
            k += 1;
        }
        n += 1;
    }
    c
}

/// `C(n, k)` for `n <= MAX_N`, `k <= MAX_K`.
#[inline]
pub fn binomial(n: u32, k: usize) -> u32 {
    BINOMIAL[k][n as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_product_formula() {
        for k in 0..=MAX_K as u64 {
            for n in 0..=MAX_N as u64 {
                let exact = (0..k).fold(1u64, |c, i| c * (n - i.min(n)) / (i + 1));
                assert_eq!(u64::from(binomial(n as u32, k as usize)), exact, "C({n}, {k})");
            }
        }
        assert_eq!(binomial(32, 5), 201_376);
        assert_eq!(binomial(90, 2), 4005);
    }
}
