//! `--bucket`, `--pad` and `--buckets-max`: building the bucket spec of the
//! `bucket` pass from the command line, including `DIM=auto:FILE`, which picks
//! the buckets from observed sizes (one per line).

use crate::driver::DriverError;
use passes::bucket::auto::{choose, AutoBuckets};
use passes::bucket::BucketSpec;
use std::path::Path;

/// Default of `--buckets-max`.
pub const DEFAULT_MAX_BUCKETS: usize = 4;

/// The spec for the given `--bucket` and `--pad` arguments, and the report of
/// every `auto:` choice. All problems are reported together.
pub fn bucket_spec(
    buckets: &[String],
    pads: &[String],
    max_buckets: usize,
) -> Result<(BucketSpec, Vec<AutoBuckets>), DriverError> {
    let mut spec = BucketSpec::default();
    let mut autos = Vec::new();
    let mut errs = Vec::new();
    for arg in buckets {
        match arg.split_once('=') {
            Some((dim, rest)) if rest.starts_with("auto:") => {
                match observed_sizes(Path::new(&rest["auto:".len()..])).and_then(|obs| choose(dim, &obs, max_buckets)) {
                    Ok(a) => {
                        spec.dims.push((dim.to_string(), a.sizes()));
                        autos.push(a);
                    }
                    Err(e) => errs.push(format!("--bucket {arg}: {e}")),
                }
            }
            _ => match BucketSpec::parse_dim(arg) {
                Ok(d) => spec.dims.push(d),
                Err(e) => errs.push(e),
            },
        }
    }
    for arg in pads {
        match BucketSpec::parse_pad(arg) {
            Ok((n, v)) => {
                if spec.pads.insert(n.clone(), v).is_some() {
                    errs.push(format!("--pad {n} is given twice"));
                }
            }
            Err(e) => errs.push(e),
        }
    }
    if !pads.is_empty() && buckets.is_empty() {
        errs.push("--pad only applies with --bucket".into());
    }
    if errs.is_empty() {
        Ok((spec, autos))
    } else {
        Err(DriverError::Usage(errs.join("\n")))
    }
}

/// Sizes from a file, one per line; blank lines and `#` comments are skipped.
/// Errors name `file:line`.
pub fn observed_sizes(path: &Path) -> Result<Vec<u64>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let s = line.split('#').next().unwrap_or("").trim();
        if s.is_empty() {
            continue;
        }
        match s.parse::<u64>() {
            Ok(n) if n > 0 => out.push(n),
            _ => bad.push(format!("{}:{}: \"{s}\" is not a positive size", path.display(), i + 1)),
        }
    }
    if !bad.is_empty() {
        return Err(bad.join("\n"));
    }
    if out.is_empty() {
        return Err(format!("{}: no sizes (expected one positive integer per line)", path.display()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_and_pads() {
        let (s, a) =
            bucket_spec(&["seq=64,32,128,64".into()], &["attention_mask=0".into(), "ids=1".into()], 4).unwrap();
        assert_eq!(s.dims, vec![("seq".to_string(), vec![32, 64, 128])]);
        assert_eq!(s.pads.get("ids"), Some(&1.0));
        assert!(a.is_empty());
    }

    #[test]
    fn every_problem_is_reported() {
        let e =
            bucket_spec(&["seq=0,4".into(), "h".into(), "w=auto:/nonexistent/sizes.txt".into()], &["x=abc".into()], 4)
                .unwrap_err()
                .to_string();
        for want in ["\"0\" is not a positive size", "expects DIM=SIZE", "/nonexistent/sizes.txt", "--pad expects"] {
            assert!(e.contains(want), "{want} missing in: {e}");
        }
    }

    #[test]
    fn auto_from_file() {
        let dir = std::env::temp_dir().join(format!("edgec-bucket-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("sizes.txt");
        std::fs::write(&p, "# lengths\n10\n12\n\n100 # long\n128\n").unwrap();
        let arg = format!("seq=auto:{}", p.display());
        let (s, a) = bucket_spec(&[arg], &[], 2).unwrap();
        assert_eq!(s.dims[0].1, vec![12, 128]);
        assert_eq!(a[0].buckets.len(), 2);
        std::fs::write(&p, "10\nx\n").unwrap();
        let e = observed_sizes(&p).unwrap_err();
        assert!(e.ends_with(":2: \"x\" is not a positive size"), "{e}");
    }
}
