//! A persistent worker pool for splitting one op's work across cores.
//! Shared infrastructure, not about one op family: GEMM (and through it
//! conv, matmul, attention, rnn) and depthwise conv split their work here.
//!
//! Invariants:
//! - workers are spawned once, by [`Pool::new`]; running a job spawns
//!   nothing and allocates nothing (a job is a borrowed closure; the only
//!   allocations are each thread's scratch growing to the largest size it
//!   was asked for, during the first runs);
//! - a kernel splits its work into tasks whose results do not depend on
//!   which thread runs them or how many threads there are: outputs are
//!   bit-identical for any thread count (each split keeps every output
//!   element's arithmetic as the single-threaded kernel does it);
//! - kernels see a pool only inside [`Pool::install`] on the calling thread;
//!   a task that itself asks for parallel work runs it inline (no nesting);
//! - a panic in a task is caught, every thread finishes with the job, and
//!   the panic resumes on the calling thread, so a borrowed job never
//!   outlives its caller's frame.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// A job as workers see it: the borrowed task closure with its lifetime
/// erased. Valid while `open`; a worker joins (`active += 1`) before it
/// looks at `open`, and [`Shared::run`] closes the job and then waits for
/// `active == 0`, so no worker touches a job after its caller returns.
type Job = *const (dyn Fn(usize, &mut [f32]) + Sync + 'static);

/// A task of [`for_each_chunk`]: its index, its chunk and the running
/// thread's scratch.
pub type ChunkTask<'a, T> = dyn Fn(usize, &mut [T], &mut [f32]) + Sync + 'a;

/// A task: its index and the running thread's scratch.
pub type Task<'a> = dyn Fn(usize, &mut [f32]) + Sync + 'a;

/// What the calling thread and the workers share.
struct Shared {
    /// Bumped (under `lock`) to publish a job; workers wait for a change.
    epoch: AtomicU64,
    lock: Mutex<()>,
    wake: Condvar,
    done: Condvar,
    /// The published job, its task count and scratch length.
    job: std::cell::UnsafeCell<(Option<Job>, usize, usize)>,
    /// Each thread's scratch (the caller's first), grown by [`Pool::reserve`]
    /// or by the first job that needs more.
    slots: Box<[Mutex<Vec<f32>>]>,
    /// A caller is running a job (a second caller of a shared pool runs
    /// its work inline).
    busy: AtomicBool,
    /// Next unclaimed task.
    next: AtomicUsize,
    /// The job may be joined.
    open: AtomicBool,
    /// Workers that joined the job and have not left it.
    active: AtomicUsize,
    /// Workers that have started (their start-up is over before `new` returns).
    started: AtomicUsize,
    panicked: AtomicBool,
    shutdown: AtomicBool,
}

// SAFETY: `job` is written only by the calling thread while it is closed and
// no worker is active, and read by a worker only after it joined and saw it
// open (SeqCst on `open` and `active` on both sides: a worker either sees
// the job closed or is seen active by the caller, who then waits for it).
#[allow(unsafe_code)]
unsafe impl Sync for Shared {}
// SAFETY: as above; the raw job pointer is only dereferenced under that protocol.
#[allow(unsafe_code)]
unsafe impl Send for Shared {}

/// How long an idle worker polls for the next job before it sleeps (in
/// spin-loop hints; a few tens of microseconds: the gap between two ops).
const SPIN: u32 = 1 << 15;

/// Spin-loop hints between two yields of a polling thread (so a pool with
/// more threads than free cores still lets the busy threads run).
const YIELD_EVERY: u32 = 256;

/// Poll `ready` for up to [`SPIN`] hints, yielding now and then; true if it
/// became true.
fn poll(ready: impl Fn() -> bool) -> bool {
    for i in 1..=SPIN {
        if ready() {
            return true;
        }
        if i % YIELD_EVERY == 0 {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
    ready()
}

/// A pool of `threads - 1` workers plus the calling thread. Cloning shares
/// the workers; they stop when the last clone is dropped.
#[derive(Clone, Default)]
pub struct Pool {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        {
            let _g = self.shared.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.shared.shutdown.store(true, Ordering::SeqCst);
            self.shared.epoch.fetch_add(1, Ordering::SeqCst);
            self.shared.wake.notify_all();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool({} threads)", self.threads())
    }
}

impl Pool {
    /// A pool that runs work on `threads` threads (the caller's and
    /// `threads - 1` workers spawned now); 0 and 1 mean the caller alone.
    /// Fails only if the OS refuses a thread.
    pub fn new(threads: usize) -> std::io::Result<Pool> {
        if threads <= 1 {
            return Ok(Pool::default());
        }
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
            done: Condvar::new(),
            job: std::cell::UnsafeCell::new((None, 0, 0)),
            slots: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
            busy: AtomicBool::new(false),
            next: AtomicUsize::new(0),
            open: AtomicBool::new(false),
            active: AtomicUsize::new(0),
            started: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
        });
        let mut workers = Vec::with_capacity(threads - 1);
        for i in 1..threads {
            let s = Arc::clone(&shared);
            let h = std::thread::Builder::new().name(format!("edgec-worker-{i}")).spawn(move || worker(&s, i));
            match h {
                Ok(h) => workers.push(h),
                Err(e) => {
                    drop(Inner { shared, workers });
                    return Err(e);
                }
            }
        }
        // Thread start-up allocates: let it happen now, not in a job.
        let mut g = shared.lock.lock().unwrap_or_else(|e| e.into_inner());
        while shared.started.load(Ordering::Acquire) < threads - 1 {
            g = shared.done.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        drop(g);
        Ok(Pool { inner: Some(Arc::new(Inner { shared, workers })) })
    }

    /// Threads that run work (the caller included).
    pub fn threads(&self) -> usize {
        self.inner.as_ref().map_or(1, |i| i.shared.slots.len())
    }

    /// Grow every thread's scratch to `len` elements now, so no job of at
    /// most that much scratch allocates (a model reserves its own scratch
    /// length: no kernel's task needs more).
    pub fn reserve(&self, len: usize) {
        for slot in self.inner.iter().flat_map(|i| i.shared.slots.iter()) {
            let mut v = slot.lock().unwrap_or_else(|e| e.into_inner());
            if v.len() < len {
                v.resize(len, 0.0);
            }
        }
    }

    /// Run `f` with this pool serving the kernels it calls on this thread.
    pub fn install<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Restore(*const Inner);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(self.0));
            }
        }
        let me = self.inner.as_ref().map_or(std::ptr::null(), Arc::as_ptr);
        let _restore = Restore(CURRENT.with(|c| c.replace(me)));
        f()
    }
}

std::thread_local! {
    /// The pool installed on this thread (null: none, or a worker).
    static CURRENT: Cell<*const Inner> = const { Cell::new(std::ptr::null()) };
    /// This thread's scratch for work run inline (grown, never shrunk).
    static SCRATCH: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Threads the installed pool offers (1 when none is installed, and inside
/// a task).
pub fn current_threads() -> usize {
    CURRENT.with(|c| {
        let p = c.get();
        if p.is_null() {
            1
        } else {
            // SAFETY: a non-null CURRENT points at the `Inner` of a pool
            // borrowed by an `install` frame still on this thread's stack.
            #[allow(unsafe_code)]
            unsafe {
                let inner: &Inner = &*p;
                inner.shared.slots.len()
            }
        }
    })
}

/// Fewest elementary steps (multiply-adds, window taps, additions) of an
/// op worth splitting across threads: a few microseconds of one core.
const MIN_WORK: usize = 1 << 17;

/// Units per part when `len` units of an op doing `work` steps split across
/// the installed pool's threads, each part a multiple of `align` units
/// (the last may be shorter); `len` (one part) when there is no pool, the
/// work is small or it would not make two parts.
pub(crate) fn part_len(len: usize, align: usize, work: usize) -> usize {
    let threads = current_threads();
    let per = len.div_ceil(align.max(1)).div_ceil(threads) * align.max(1);
    if threads < 2 || work < MIN_WORK || per >= len {
        len.max(1)
    } else {
        per
    }
}

/// Run `task(0..tasks)` on the installed pool's threads (inline, in order,
/// when there is none or `tasks < 2`). Returns when every task has run.
pub fn run(tasks: usize, task: &(dyn Fn(usize) + Sync)) {
    run_with_scratch(tasks, 0, &|t, _| task(t));
}

/// [`run`], each task given `scratch` elements of its thread's scratch.
pub fn run_with_scratch(tasks: usize, scratch: usize, task: &Task<'_>) {
    let p = CURRENT.with(Cell::get);
    if p.is_null() || tasks < 2 {
        return with_scratch(scratch, |s| (0..tasks).for_each(|t| task(t, s)));
    }
    // SAFETY: as in `current_threads`.
    #[allow(unsafe_code)]
    let shared = unsafe { &*(*p).shared };
    if shared.busy.swap(true, Ordering::Acquire) {
        // Another thread runs a job on this pool: this work runs inline.
        return with_scratch(scratch, |s| (0..tasks).for_each(|t| task(t, s)));
    }
    // A task asking for parallel work runs it inline (see the invariants).
    let outer = CURRENT.with(|c| c.replace(std::ptr::null()));
    let r = catch_unwind(AssertUnwindSafe(|| shared.run(tasks, scratch, task)));
    CURRENT.with(|c| c.set(outer));
    shared.busy.store(false, Ordering::Release);
    if let Err(e) = r {
        resume_unwind(e);
    }
}

/// Split `data` into chunks of `chunk` elements (the last may be shorter)
/// and run `f(index, chunk, scratch)` for each on the installed pool, with
/// `scratch` elements of the running thread's scratch.
pub fn for_each_chunk<T: Send>(data: &mut [T], chunk: usize, scratch: usize, f: &ChunkTask<'_, T>) {
    let chunk = chunk.max(1);
    let (len, ptr) = (data.len(), SendPtr(data.as_mut_ptr()));
    run_with_scratch(len.div_ceil(chunk), scratch, &|i, s| {
        let start = i * chunk;
        let n = chunk.min(len - start);
        // SAFETY: task `i` alone touches elements `start..start + n` of
        // `data`, which the caller lent mutably for this call.
        #[allow(unsafe_code)]
        let part = unsafe { std::slice::from_raw_parts_mut(ptr.get().add(start), n) };
        f(i, part, s)
    });
}

/// A raw pointer tasks may share (each task touches its own elements).
pub(crate) struct SendPtr<T>(pub *mut T);
impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}
// SAFETY: only used to hand disjoint parts of one `&mut` borrow to tasks.
#[allow(unsafe_code)]
unsafe impl<T: Send> Sync for SendPtr<T> {}
// SAFETY: as above.
#[allow(unsafe_code)]
unsafe impl<T: Send> Send for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer (a method, so closures capture the whole `SendPtr`).
    pub fn get(self) -> *mut T {
        self.0
    }
}

/// Run `f` with this thread's inline-work scratch of `len` elements.
fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [f32]) -> R) -> R {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < len {
            s.resize(len, 0.0);
        }
        f(&mut s[..len])
    })
}

impl Shared {
    /// Publish `task`, run tasks on this thread too (all of them if no
    /// worker joins), close the job and wait for the workers that joined
    /// it; then re-raise a panic of any task.
    fn run(&self, tasks: usize, scratch: usize, task: &Task<'_>) {
        // SAFETY: the lifetime is erased only while the job is open or a
        // worker that joined it is active; this function outlives both.
        #[allow(unsafe_code)]
        let job: Job = unsafe { std::mem::transmute::<*const Task<'_>, Job>(task) };
        // SAFETY: the job is closed and no worker is active (the last
        // `run` waited for that), so no worker reads `job` now.
        #[allow(unsafe_code)]
        unsafe {
            *self.job.get() = (Some(job), tasks, scratch)
        };
        self.next.store(0, Ordering::Relaxed);
        self.panicked.store(false, Ordering::Relaxed);
        self.open.store(true, Ordering::SeqCst);
        {
            let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.epoch.fetch_add(1, Ordering::Release);
            self.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| claim(self, 0, (tasks, scratch), task)));
        self.open.store(false, Ordering::SeqCst);
        if !poll(|| self.active.load(Ordering::SeqCst) == 0) {
            let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            while self.active.load(Ordering::SeqCst) != 0 {
                g = self.done.wait(g).unwrap_or_else(|e| e.into_inner());
            }
        }
        if let Err(e) = mine {
            resume_unwind(e);
        }
        if self.panicked.load(Ordering::Acquire) {
            panic!("a task of a parallel kernel panicked on a worker thread");
        }
    }
}

/// Claim and run tasks until none is left, with thread `slot`'s scratch.
fn claim(s: &Shared, slot: usize, (tasks, len): (usize, usize), task: &Task<'_>) {
    let mut v = s.slots[slot].lock().unwrap_or_else(|e| e.into_inner());
    if v.len() < len {
        v.resize(len, 0.0);
    }
    loop {
        let t = s.next.fetch_add(1, Ordering::Relaxed);
        if t >= tasks {
            return;
        }
        task(t, &mut v[..len]);
    }
}

/// A worker's life: wait for a job, join it if it is still open, help
/// run it, leave; until shutdown.
fn worker(s: &Shared, slot: usize) {
    {
        let _g = s.lock.lock().unwrap_or_else(|e| e.into_inner());
        s.started.fetch_add(1, Ordering::Release);
        s.done.notify_all();
    }
    let mut seen = 0;
    loop {
        if !poll(|| s.epoch.load(Ordering::Acquire) != seen) {
            let mut g = s.lock.lock().unwrap_or_else(|e| e.into_inner());
            while s.epoch.load(Ordering::Acquire) == seen {
                g = s.wake.wait(g).unwrap_or_else(|e| e.into_inner());
            }
        }
        seen = s.epoch.load(Ordering::Acquire);
        if s.shutdown.load(Ordering::Acquire) {
            return;
        }
        s.active.fetch_add(1, Ordering::SeqCst);
        if s.open.load(Ordering::SeqCst) {
            // SAFETY: joined while open: the caller has written the job and
            // waits for us to leave before it returns or writes another.
            #[allow(unsafe_code)]
            let (job, tasks, len) = unsafe { *s.job.get() };
            if let Some(job) = job {
                // SAFETY: see `Job`.
                #[allow(unsafe_code)]
                let job = unsafe { &*job };
                if catch_unwind(AssertUnwindSafe(|| claim(s, slot, (tasks, len), job))).is_err() {
                    s.panicked.store(true, Ordering::Release);
                }
            }
        }
        if s.active.fetch_sub(1, Ordering::SeqCst) == 1 {
            let _g = s.lock.lock().unwrap_or_else(|e| e.into_inner());
            s.done.notify_all();
        }
    }
}
