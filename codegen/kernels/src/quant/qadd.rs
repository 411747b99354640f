//! `quant.add`: `Q(Add(DQ(a), DQ(b)))` fused on 8-bit tensors of one shape,
//! per element `edgec_numeric::quant::qadd` (the unfused ops' own f32 steps,
//! so the result is theirs bit for bit), vectorized per instruction set.

use edgec_numeric::quant::qadd;

/// The per-tensor grids of a `quant.add`.
#[derive(Copy, Clone, Debug)]
pub struct QAdd {
    /// A's scale.
    pub a_scale: f32,
    /// A's zero point.
    pub a_zero: i32,
    /// B's scale.
    pub b_scale: f32,
    /// B's zero point.
    pub b_zero: i32,
    /// The result's scale.
    pub y_scale: f32,
    /// The result's zero point.
    pub y_zero: i32,
}

/// An element type `quant.add` runs on.
pub trait QAddElem: Copy {
    /// `y = quant.add(a, b)` elementwise.
    fn run(p: &QAdd, a: &[Self], b: &[Self], y: &mut [Self]);
}

macro_rules! elem {
    ($t:ty, $name:ident, $lo:expr, $hi:expr) => {
        crate::multiversion! {
            fn $name(p: &QAdd, a: &[$t], b: &[$t], y: &mut [$t]) {
                for ((o, &x), &w) in y.iter_mut().zip(a).zip(b) {
                    let v = qadd(x as i32, p.a_zero, p.a_scale, w as i32, p.b_zero, p.b_scale, p.y_scale, p.y_zero, $lo, $hi);
                    *o = v as $t;
                }
            }
        }
        impl QAddElem for $t {
            fn run(p: &QAdd, a: &[$t], b: &[$t], y: &mut [$t]) {
                $name(p, a, b, y)
            }
        }
    };
}
elem!(u8, add_u8, 0, 255);
elem!(i8, add_i8, -128, 127);

/// `y = Q(DQ(a) + DQ(b))`; the three slices have one length (asserted).
pub fn quant_add<X: QAddElem>(p: &QAdd, a: &[X], b: &[X], y: &mut [X]) {
    assert!(
        a.len() == y.len() && b.len() == y.len(),
        "quant.add: {} and {} elements into {}",
        a.len(),
        b.len(),
        y.len()
    );
    X::run(p, a, b, y);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unfused steps, as the reference interpreter runs them.
    fn unfused(p: &QAdd, a: u8, b: u8) -> u8 {
        let da = ((a as i64 - p.a_zero as i64) as f64 * p.a_scale as f64) as f32;
        let db = ((b as i64 - p.b_zero as i64) as f64 * p.b_scale as f64) as f32;
        let q = (da + db) / p.y_scale;
        (q.round_ties_even() + p.y_zero as f32).clamp(0.0, 255.0) as u8
    }

    #[test]
    fn every_pair_equals_the_unfused_ops() {
        let p = QAdd { a_scale: 0.037, a_zero: 120, b_scale: 0.0113, b_zero: 7, y_scale: 0.041, y_zero: 90 };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for x in 0..=255u8 {
            for w in 0..=255u8 {
                a.push(x);
                b.push(w);
            }
        }
        let mut y = vec![0u8; a.len()];
        quant_add(&p, &a, &b, &mut y);
        for i in 0..a.len() {
            assert_eq!(y[i], unfused(&p, a[i], b[i]), "{} + {}", a[i], b[i]);
        }
        let (ai, bi): (Vec<i8>, Vec<i8>) = a.iter().zip(&b).map(|(&x, &w)| (x as i8, w as i8)).unzip();
        let mut yi = vec![0i8; ai.len()];
        let pi = QAdd { a_zero: -8, b_zero: 3, y_zero: -20, ..p };
        quant_add(&pi, &ai, &bi, &mut yi);
        let want = |x: i8, w: i8| {
            let s = (x as i32 + 8) as f32 * pi.a_scale + (w as i32 - 3) as f32 * pi.b_scale;
            ((s / pi.y_scale).round_ties_even() - 20.0).clamp(-128.0, 127.0) as i8
        };
        assert!(ai.iter().zip(&bi).zip(&yi).all(|((&x, &w), &v)| v == want(x, w)));
    }
}
