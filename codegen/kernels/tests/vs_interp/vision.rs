//! Window kernels vs the interpreter: ConvInteger and QLinearConv
//! (integers exactly), 8-bit MaxPool (exactly), DeformConv (bit-exact:
//! the interpreter's f32 operation order), RoiAlign (f64 inside, rounded
//! once) and Col2Im with run-time image and block shapes.

use super::common::*;
use edgec_kernels::conv::deform::{deform_conv, deform_conv_scratch_len, DeformConv};
use edgec_kernels::conv::window::Window;
use edgec_kernels::quant::conv::{conv_integer, qlinear_conv, ConvInt, QParams};
use edgec_kernels::resample::roi::{roi_align, RoiAlign};
use ir::interp::{Data, Tensor};
use ir::{Attr, Opcode};
use proptest::prelude::*;

fn u8t(shape: &[usize], v: &[u8]) -> Tensor {
    Tensor::new(shape.to_vec(), Data::U8(v.to_vec()))
}

fn i8t(shape: &[usize], v: &[i8]) -> Tensor {
    Tensor::new(shape.to_vec(), Data::I8(v.to_vec()))
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// A 2-D conv geometry: `(n, c, m, group, [h, w], [kh, kw], strides, dilations, pads)`.
#[derive(Clone, Debug)]
struct Geo {
    n: usize,
    c: usize,
    m: usize,
    group: usize,
    input: Vec<usize>,
    kernel: Vec<usize>,
    strides: Vec<usize>,
    dilations: Vec<usize>,
    pads: Vec<usize>,
}

impl Geo {
    fn output(&self) -> Vec<usize> {
        (0..self.input.len())
            .map(|a| {
                let ext = self.dilations[a] * (self.kernel[a] - 1) + 1;
                (self.input[a] + self.pads[a] + self.pads[a + self.input.len()] - ext) / self.strides[a] + 1
            })
            .collect()
    }
    fn attrs(&self) -> ir::Attrs {
        let v = |x: &[usize]| Attr::Ints(x.iter().map(|&d| d as i64).collect());
        attrs(vec![
            ("group", Attr::Int(self.group as i64)),
            ("kernel_shape", v(&self.kernel)),
            ("strides", v(&self.strides)),
            ("dilations", v(&self.dilations)),
            ("pads", v(&self.pads)),
        ])
    }
    fn window<'a>(&'a self, out: &'a [usize]) -> Window<'a> {
        Window {
            input: &self.input,
            kernel: &self.kernel,
            output: out,
            strides: &self.strides,
            dilations: &self.dilations,
            pads: &self.pads[..self.input.len()],
        }
    }
}

/// 1-D or 2-D geometries whose dilated kernel fits the padded input.
fn geo() -> impl Strategy<Value = Geo> {
    (1usize..3, 1usize..3, 1usize..3, 1usize..3, 1usize..3).prop_flat_map(|(r, n, cg, mg, group)| {
        (
            prop::collection::vec(3usize..7, r),
            prop::collection::vec(1usize..4, r),
            prop::collection::vec(1usize..3, r),
            prop::collection::vec(1usize..3, r),
            prop::collection::vec(0usize..2, 2 * r),
        )
            .prop_map(move |(input, kernel, strides, dilations, pads)| {
                let kernel: Vec<usize> =
                    kernel.iter().zip(&input).zip(&dilations).map(|((&k, &i), &d)| k.min((i - 1) / d + 1)).collect();
                Geo { n, c: cg * group, m: mg * group, group, input, kernel, strides, dilations, pads }
            })
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn conv_integer_matches(g in geo(), seed in prop::collection::vec(any::<u8>(), 600), wseed in prop::collection::vec(any::<i8>(), 200),
                            xz in any::<u8>(), wz in prop::collection::vec(any::<i8>(), 4), per_channel in any::<bool>()) {
        let xs: Vec<usize> = [g.n, g.c].into_iter().chain(g.input.clone()).collect();
        let ws: Vec<usize> = [g.m, g.c / g.group].into_iter().chain(g.kernel.clone()).collect();
        let (x, w) = (&seed[..numel(&xs)], &wseed[..numel(&ws)]);
        let wzp: Vec<i8> = if per_channel { (0..g.m).map(|i| wz[i % 4]).collect() } else { vec![wz[0]] };
        let zs = [wzp.len()];
        let ins = vec![Some(u8t(&xs, x)), Some(i8t(&ws, w)), Some(u8t(&[], &[xz])), Some(i8t(if per_channel { &zs } else { &[] }, &wzp))];
        let Data::I32(want) = interp(Opcode::ConvInteger, ins, g.attrs(), 1).remove(0).data else { panic!("not i32") };
        let out = g.output();
        let p = ConvInt { n: g.n, c: g.c, m: g.m, group: g.group, win: g.window(&out) };
        let mut y = vec![0i32; want.len()];
        conv_integer(&p, x, &[xz], w, &wzp, &mut y);
        prop_assert_eq!(y, want);
    }

    #[test]
    fn qlinear_conv_matches(g in geo(), seed in prop::collection::vec(any::<i8>(), 600), wseed in prop::collection::vec(any::<u8>(), 200),
                            xz in any::<i8>(), wz in any::<u8>(), yz in any::<u8>(), xs_ in 0.001f32..0.1, ws_ in prop::collection::vec(0.001f32..0.1, 4),
                            ys_ in 0.01f32..1.0, bias in prop::collection::vec(-5000i32..5000, 4), with_bias in any::<bool>()) {
        let xs: Vec<usize> = [g.n, g.c].into_iter().chain(g.input.clone()).collect();
        let wsh: Vec<usize> = [g.m, g.c / g.group].into_iter().chain(g.kernel.clone()).collect();
        let (x, w) = (&seed[..numel(&xs)], &wseed[..numel(&wsh)]);
        let wscale: Vec<f32> = (0..g.m).map(|i| ws_[i % 4]).collect();
        let b: Vec<i32> = (0..g.m).map(|i| bias[i % 4]).collect();
        let mut ins = vec![
            Some(i8t(&xs, x)), Some(f32t(&[], &[xs_])), Some(i8t(&[], &[xz])),
            Some(u8t(&wsh, w)), Some(f32t(&[g.m], &wscale)), Some(u8t(&[], &[wz])),
            Some(f32t(&[], &[ys_])), Some(u8t(&[], &[yz])),
        ];
        if with_bias {
            ins.push(Some(i32t(&[g.m], &b)));
        }
        let Data::U8(want) = interp(Opcode::QLinearConv, ins, g.attrs(), 1).remove(0).data else { panic!("not u8") };
        let out = g.output();
        let p = ConvInt { n: g.n, c: g.c, m: g.m, group: g.group, win: g.window(&out) };
        let q = QParams { x_scale: xs_, x_zero: xz, w_scale: &wscale, w_zero: &[wz], y_scale: ys_, y_zero: yz };
        let mut y = vec![0u8; want.len()];
        qlinear_conv(&p, &q, x, w, with_bias.then_some(&b[..]), &mut y);
        prop_assert_eq!(y, want);
    }

    #[test]
    fn max_pool_u8_matches(g in geo(), seed in prop::collection::vec(any::<u8>(), 600)) {
        let xs: Vec<usize> = [g.n, g.c].into_iter().chain(g.input.clone()).collect();
        let x = &seed[..numel(&xs)];
        let v = |x: &[usize]| Attr::Ints(x.iter().map(|&d| d as i64).collect());
        let at = attrs(vec![("kernel_shape", v(&g.kernel)), ("strides", v(&g.strides)), ("dilations", v(&g.dilations)), ("pads", v(&g.pads))]);
        let Data::U8(want) = interp(Opcode::MaxPool, vec![Some(u8t(&xs, x))], at, 1).remove(0).data else { panic!("not u8") };
        let out = g.output();
        let mut y = vec![0u8; want.len()];
        edgec_kernels::pool::max_pool_ord(g.n * g.c, &g.window(&out), x, &mut y);
        prop_assert_eq!(y, want);
    }

    #[test]
    fn deform_conv_matches_bitwise(g in geo(), og in 1usize..3, seed in prop::collection::vec(-2.0f32..2.0, 600),
                                   offs in prop::collection::vec(-1.5f32..1.5, 4000), with_mask in any::<bool>(), with_bias in any::<bool>()) {
        let og = if g.c % og == 0 { og } else { 1 };
        let xs: Vec<usize> = [g.n, g.c].into_iter().chain(g.input.clone()).collect();
        let ws: Vec<usize> = [g.m, g.c / g.group].into_iter().chain(g.kernel.clone()).collect();
        let out = g.output();
        let (r, ks, os) = (g.input.len(), numel(&g.kernel), numel(&out));
        let offset_shape: Vec<usize> = [g.n, og * ks * r].into_iter().chain(out.clone()).collect();
        let mask_shape: Vec<usize> = [g.n, og * ks].into_iter().chain(out.clone()).collect();
        prop_assume!(numel(&offset_shape) <= offs.len());
        let (x, w) = (&seed[..numel(&xs)], &seed[300..300 + numel(&ws)]);
        let off = &offs[..numel(&offset_shape)];
        let mask: Vec<f32> = offs[..numel(&mask_shape)].iter().map(|v| v.abs()).collect();
        let bias: Vec<f32> = seed[..g.m].to_vec();
        let mut at = g.attrs();
        at = at.with("offset_group", Attr::Int(og as i64));
        let ins = vec![
            Some(f32t(&xs, x)), Some(f32t(&ws, w)), Some(f32t(&offset_shape, off)),
            with_bias.then(|| f32t(&[g.m], &bias)), with_mask.then(|| f32t(&mask_shape, &mask)),
        ];
        let want = as_f32(&interp(Opcode::DeformConv, ins, at, 1)[0]);
        let p = DeformConv { n: g.n, c: g.c, m: g.m, group: g.group, offset_group: og, win: g.window(&out) };
        let mut scratch = vec![0.0f32; deform_conv_scratch_len(&p)];
        let mut y = vec![0.0f32; g.n * g.m * os];
        deform_conv(&p, x, w, off, with_bias.then_some(&bias[..]), with_mask.then_some(&mask[..]), &mut scratch, &mut y);
        prop_assert_eq!(bits(&y), bits(&want));
    }

    #[test]
    fn roi_align_matches(n in 1usize..3, c in 1usize..3, h in 1usize..6, w in 1usize..6, rois in 1usize..4,
                         oh in 1usize..4, ow in 1usize..4, sampling in 0usize..3, scale in prop_oneof![Just(1.0f32), 0.25f32..2.0],
                         half in any::<bool>(), max in any::<bool>(), seed in prop::collection::vec(-3.0f32..3.0, 200),
                         boxes in prop::collection::vec(-1.0f32..7.0, 12), batch in prop::collection::vec(0i64..3, 3)) {
        let x = &seed[..n * c * h * w];
        let r = &boxes[..rois * 4];
        let b: Vec<i64> = batch[..rois].iter().map(|&v| v % n as i64).collect();
        let at = attrs(vec![
            ("output_height", Attr::Int(oh as i64)), ("output_width", Attr::Int(ow as i64)),
            ("sampling_ratio", Attr::Int(sampling as i64)), ("spatial_scale", Attr::Float(scale)),
            ("coordinate_transformation_mode", Attr::Str(if half { "half_pixel" } else { "output_half_pixel" }.into())),
            ("mode", Attr::Str(if max { "max" } else { "avg" }.into())),
        ]);
        let ins = vec![Some(f32t(&[n, c, h, w], x)), Some(f32t(&[rois, 4], r)), Some(i64t(&[rois], &b))];
        let want = as_f32(&interp(Opcode::RoiAlign, ins, at, 1)[0]);
        let p = RoiAlign { n, c, h, w, rois, out_h: oh, out_w: ow, sampling, scale, half_pixel: half, max };
        let mut y = vec![0.0f32; want.len()];
        roi_align(&p, x, r, &b, &mut y).unwrap();
        prop_assert_eq!(bits(&y), bits(&want));
        prop_assert!(roi_align(&p, x, r, &vec![n as i64; rois], &mut y).is_err());
    }

    #[test]
    fn col2im_with_runtime_shapes_matches(n in 1usize..3, c in 1usize..3, image in prop::collection::vec(2usize..6, 1..3),
                                          block in prop::collection::vec(1usize..3, 2), stride in 1usize..3, pad in 0usize..2,
                                          seed in prop::collection::vec(-2.0f32..2.0, 800)) {
        let r = image.len();
        let block = &block[..r];
        let (strides, dilations, pads) = (vec![stride; r], vec![1usize; r], vec![pad; 2 * r]);
        let blocks: Vec<usize> = (0..r).map(|a| (image[a] + 2 * pad - block[a]) / stride + 1).collect();
        let xs = [n, c * numel(block), numel(&blocks)];
        prop_assume!(numel(&xs) <= seed.len());
        let x = &seed[..numel(&xs)];
        let v = |d: &[usize]| d.iter().map(|&x| x as i64).collect::<Vec<_>>();
        let at = attrs(vec![("strides", Attr::Ints(v(&strides))), ("pads", Attr::Ints(v(&pads)))]);
        let ins = vec![Some(f32t(&xs, x)), Some(ints(&v(&image))), Some(ints(&v(block)))];
        let want = as_f32(&interp(Opcode::Col2Im, ins, at, 1)[0]);
        let mut y = vec![0.0f32; want.len()];
        edgec_kernels::conv::col2im::col2im_checked(xs, &v(&image), &v(block), &strides, &dilations, &pads, &image, x, &mut y).unwrap();
        prop_assert_eq!(bits(&y), bits(&want));
        let mut other = v(&image);
        other[0] += 1;
        prop_assert!(edgec_kernels::conv::col2im::col2im_checked(xs, &other, &v(block), &strides, &dilations, &pads, &image, x, &mut y).is_err());
    }
}
