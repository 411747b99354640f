//! Det, 2-D and batched (pivoting and singular matrices included).

use crate::common::shape::*;
use ir::interp::Data;

#[test]
fn det_2d_and_batched() {
    close(&run1(Opcode::Det, vec![f32t(&[2, 2], &[1., 2., 3., 4.])], &[]), &[], &[-2.0], 1e-6);
    let x = f32t(&[3, 2, 2], &[1., 2., 3., 4., 1., 2., 2., 1., 1., 3., 3., 1.]);
    close(&run1(Opcode::Det, vec![x], &[]), &[3], &[-2.0, -3.0, -8.0], 1e-6);
    // A matrix needing a pivot swap, and a singular one.
    let p = t(&[3, 3], Data::F64(vec![0., 2., 1., 1., 1., 1., 2., 0., 3.]));
    close(&run1(Opcode::Det, vec![p], &[]), &[], &[-4.0], 1e-12);
    close(&run1(Opcode::Det, vec![f16t(&[2, 2], &[1., 2., 2., 4.])], &[]), &[], &[0.0], 0.0);
    fails(Opcode::Det, vec![Some(f32t(&[2, 3], &[0.; 6]))], &[], 1);
    fails(Opcode::Det, vec![Some(i32t(&[2, 2], &[0; 4]))], &[], 1);
}
