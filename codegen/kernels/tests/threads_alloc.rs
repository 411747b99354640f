//! Split kernels allocate nothing once the pool's scratch is reserved: a
//! counting global allocator, in a test without libtest's harness (its
//! threads allocate on their own schedule), so only this `main`, the pool's
//! workers and the kernels run while it counts.

use edgec_kernels::conv::{self, Conv2d, PackedConv};
use edgec_kernels::gemm::{self, Epilogue, Gemm};
use edgec_kernels::threads::{self, Pool};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

struct Counting;

// SAFETY: every call is forwarded unchanged to the system allocator.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() {
    let g = Gemm { m: 96, n: 400, k: 128, trans_a: false, trans_b: false };
    let (a, b) = (vec![0.5f32; g.m * g.k], vec![0.25f32; g.k * g.n]);
    let mut c = vec![0.0; g.m * g.n];
    let p = Conv2d {
        n: 1,
        c_in: 64,
        c_out: 64,
        h: 56,
        w: 56,
        kh: 3,
        kw: 3,
        stride_h: 1,
        stride_w: 1,
        dil_h: 1,
        dil_w: 1,
        pad_top: 1,
        pad_left: 1,
        pad_bottom: 1,
        pad_right: 1,
        groups: 64,
    };
    let (x, w) = (vec![0.5f32; 64 * 56 * 56], vec![0.125f32; 64 * 9]);
    let pw = PackedConv::new(&p, &w);
    let mut y = vec![0.0; 64 * 56 * 56];
    let len = gemm::scratch_len(&g).max(conv::conv2d_scratch_len(&p));
    let mut scratch = vec![0.0; len];
    for threads in [2, 3] {
        let pool = Pool::new(threads).unwrap();
        pool.reserve(len);
        let mut before = 0;
        pool.install(|| {
            // Warm-up, as a model's first run: the process's lazy set-up
            // (CPU feature probes) and each thread's first task, every
            // worker made to take one (the tasks wait for each other).
            let joined = AtomicUsize::new(0);
            threads::run(threads, &|_| {
                joined.fetch_add(1, Ordering::SeqCst);
                let t0 = std::time::Instant::now();
                while joined.load(Ordering::SeqCst) < threads && t0.elapsed().as_secs() < 10 {
                    std::thread::yield_now();
                }
            });
            assert_eq!(joined.load(Ordering::SeqCst), threads, "every thread took a warm-up task");
            for round in 0..51 {
                if round == 1 {
                    before = ALLOCS.load(Ordering::Relaxed);
                }
                gemm::sgemm(&g, &a, &b, &mut c, &Epilogue::default(), &mut scratch);
                conv::conv2d(&p, &x, &pw, None, edgec_kernels::act::Act::Relu, &mut y, &mut scratch);
            }
        });
        assert_eq!(ALLOCS.load(Ordering::Relaxed) - before, 0, "{threads} threads allocated after warm-up");
    }
    println!(
        "threads_alloc: split GEMM and depthwise conv, 2 and 3 threads, 50 runs each after warm-up: no allocation"
    );
}
