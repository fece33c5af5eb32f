//! Environment variables, read the way oneDNN reads them.
//!
//! Every `ONEDNN_X` is also looked up as `DNNL_X`, and `ONEDNN_X` wins.
//! String values are lower-cased and cut at 127 bytes, as upstream's fixed
//! 128-byte buffer does.

/// The value of `ONEDNN_<name>`, else `DNNL_<name>`, lower-cased; `None` if neither is set.
pub fn get(name: &str) -> Option<String> {
    let value = std::env::var(format!("ONEDNN_{name}"))
        .or_else(|_| std::env::var(format!("DNNL_{name}")))
        .ok()?;
    let mut value = value.to_lowercase();
    if value.len() > 127 {
        let mut end = 127;
        while !value.is_char_boundary(end) {
            end -= 1;
        }
        value.truncate(end);
    }
    Some(value)
}

/// The integer value of `ONEDNN_<name>` / `DNNL_<name>`, or `default` when unset or not a number.
pub fn get_int(name: &str, default: i64) -> i64 {
    get(name)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}
