//! semver: a version (`1.2.3-alpha.1+build.5`) and a requirement (`>=1.2, <2.0.0-rc.1`) parsed
//! from untrusted text, and printed back.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(v) = semver::Version::parse(s) {
            let _ = v.to_string();
        }
        if let Ok(r) = semver::VersionReq::parse(s) {
            let _ = r.to_string();
        }
    }
});
