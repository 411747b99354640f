//! Offset assignment: the kernel runtime's best-fit placement
//! ([`edgec_kernels::plan::assign`]), which generated models with symbolic
//! dims also run, per set of sizes, at run time.

use super::{Class, Plan};
use edgec_kernels::plan::{assign as place, lower_bound, Live};

/// The class index the kernel planner uses for `c`.
pub fn class_index(c: Class) -> u8 {
    Class::ALL.iter().position(|&x| x == c).unwrap_or(0) as u8
}

/// The live ranges of `p`'s buffers, as the kernel planner takes them.
pub fn live_ranges(p: &Plan) -> Vec<Live> {
    p.buffers.iter().map(|b| Live::new(class_index(b.class), b.def as u32, b.last as u32)).collect()
}

/// Assign every buffer's offset and compute the arena sizes and lower bounds.
pub fn assign(p: &mut Plan) {
    let bufs = live_ranges(p);
    let lens: Vec<usize> = p.buffers.iter().map(|b| b.len).collect();
    let (offsets, arena) = place(&bufs, &lens, Class::ALL.len());
    for (b, off) in p.buffers.iter_mut().zip(offsets) {
        b.offset = off;
    }
    for c in Class::ALL {
        let i = class_index(c);
        if bufs.iter().any(|b| b.class == i) {
            p.arena.insert(c, arena[i as usize]);
            p.lower_bound.insert(c, lower_bound(&bufs, &lens, i));
        }
    }
}
