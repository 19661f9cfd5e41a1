//! Fuzzing of the compact encodings (`uuidkit::encoding`).
//!
//! Each input is used twice:
//! 1. as text, decoded by every encoding: nothing may panic; an accepted text is exactly
//!    the encoding's length and encodes back to itself (base32: to itself in upper case);
//!    an error's index is within the input and names the byte found there;
//! 2. its first 16 bytes (zero-padded) as a UUID: every encoding round-trips it, and
//!    the numeric encodings (base32, base58, base62) compare as the UUIDs do against the
//!    UUID made of the next 16 bytes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use uuidkit::Uuid;
use uuidkit::encoding::Encoding;

fn uuid_at(data: &[u8], from: usize) -> Uuid {
    let mut b = [0u8; 16];
    for (i, x) in data.iter().skip(from).take(16).enumerate() {
        b[i] = *x;
    }
    Uuid::from_bytes(b)
}

fuzz_target!(|data: &[u8]| {
    for e in Encoding::ALL {
        match e.decode(data) {
            Ok(u) => {
                assert_eq!(data.len(), e.len());
                let again = e.encode_to_string(&u);
                match e {
                    Encoding::Base32 => assert!(again.as_bytes().eq_ignore_ascii_case(data)),
                    _ => assert_eq!(again.as_bytes(), data),
                }
            }
            Err(err) => {
                assert!(err.index() <= data.len());
                assert_eq!(err.found(), data.get(err.index()).copied());
                assert_eq!(err.input_len(), data.len());
                assert!(!err.to_string().is_empty());
            }
        }
    }
    let (a, b) = (uuid_at(data, 0), uuid_at(data, 16));
    for e in Encoding::ALL {
        let text = e.encode_to_string(&a);
        assert_eq!(e.decode(text.as_bytes()), Ok(a));
        if e != Encoding::Base64Url {
            assert_eq!(text.cmp(&e.encode_to_string(&b)), a.cmp(&b));
        }
    }
});
