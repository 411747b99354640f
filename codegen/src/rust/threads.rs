//! The thread pool of a generated `Model`: its field, its methods, and the
//! public `run` that installs the pool around the generated body.
//!
//! Invariant: every op a model runs sees the model's pool (kernels split
//! their work across it, results bit-identical for any thread count); the
//! pool's workers start when the thread count is set, never per run.

/// The `Model` field holding the pool (1 thread until `set_threads`).
pub const FIELD: &str = "    pool: k::threads::Pool,\n";

/// Its initial value in the constructor.
pub const INIT: &str = "            pool: k::threads::Pool::default(),\n";

/// The public `run` (documented by `doc`, taking `params` as `(ident, type)`)
/// that installs the pool and calls `run_here`, followed by the head of
/// `run_here` itself (the caller writes its body).
pub fn run_head(doc: &str, params: &[(String, String)]) -> String {
    let decl: String = params.iter().map(|(id, ty)| format!(", {id}: {ty}")).collect();
    let args: Vec<&str> = params.iter().map(|(id, _)| id.as_str()).collect();
    format!(
        "    /// {doc}\n    pub fn run(&mut self{decl}) -> Result<Outputs<'_>, Error> {{\n        let pool = self.pool.clone();\n        pool.install(move || self.run_here({}))\n    }}\n\n    fn run_here(&mut self{decl}) -> Result<Outputs<'_>, Error> {{\n",
        args.join(", ")
    )
}

/// The thread-count API of every generated `Model`.
pub const METHODS: &str = "    /// The model with its embedded weights, running each op on `threads`
    /// threads (see [`Model::set_threads`]).
    pub fn with_threads(threads: usize) -> Result<Model, Error> {
        let mut m = Model::new()?;
        m.set_threads(threads)?;
        Ok(m)
    }

    /// Split the work of each op across `threads` threads from now on: the
    /// caller's and `threads - 1` workers started now and kept until the
    /// model is dropped or this is called again (0 and 1: the caller's
    /// alone). Results are bit-identical for any thread count; each
    /// thread's scratch is allocated now (a model with symbolic dims grows it
    /// on its first run at larger sizes).
    pub fn set_threads(&mut self, threads: usize) -> Result<(), Error> {
        self.pool = k::threads::Pool::default();
        self.pool = k::threads::Pool::new(threads).map_err(|e| Error(format!(\"cannot start {threads} threads: {e}\")))?;
        self.pool.reserve(self.scratch.len());
        Ok(())
    }

    /// Threads each op may use.
    pub fn threads(&self) -> usize {
        self.pool.threads()
    }

";
