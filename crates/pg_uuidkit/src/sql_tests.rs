//! The extension's tests, run by `cargo pgrx test pg15` inside a real PostgreSQL 15 with
//! the extension installed and preloaded (see `pg_test` in `lib.rs`): every function
//! through SQL, RFC 9562's vectors, errors, order over a million calls, agreement with
//! `uuid-ossp`, and no duplicates across concurrent backends.

#[pgrx::pg_schema]
mod tests {
    use pgrx::prelude::*;

    /// The one value of `sql`, which must not be NULL.
    fn one<T: IntoDatum + FromDatum>(sql: &str) -> T {
        Spi::get_one::<T>(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .unwrap_or_else(|| panic!("{sql}: NULL"))
    }

    fn text(sql: &str) -> String {
        one::<String>(sql)
    }

    fn is_true(sql: &str) {
        assert!(one::<bool>(sql), "{sql}");
    }

    /// The framework's server is up and the extension created (see `concurrent` below).
    #[pg_test]
    fn uuidkit_ready() {
        is_true("SELECT uuidkit_version(uuidkit_v4()) = 4");
    }

    #[pg_test]
    fn rfc9562_vectors_through_sql() {
        // Appendix A: v1 and v6 of the same instant, clock sequence and node.
        let v1 = "'c232ab00-9414-11ec-b3c8-9f6bdeced846'::uuid";
        let v6 = "'1ec9414c-232a-6b00-b3c8-9f6bdeced846'::uuid";
        assert_eq!(
            text(&format!("SELECT uuidkit_v1_to_v6({v1})::text")),
            "1ec9414c-232a-6b00-b3c8-9f6bdeced846"
        );
        assert_eq!(
            text(&format!("SELECT uuidkit_v6_to_v1({v6})::text")),
            "c232ab00-9414-11ec-b3c8-9f6bdeced846"
        );
        for u in [v1, v6] {
            is_true(&format!(
                "SELECT uuidkit_time({u}) = '2022-02-22 19:22:22+00'::timestamptz"
            ));
            assert_eq!(
                one::<i32>(&format!("SELECT uuidkit_clock_seq({u})")),
                0x33c8
            );
            assert_eq!(
                text(&format!("SELECT uuidkit_node({u})")),
                "9f:6b:de:ce:d8:46"
            );
            is_true(&format!(
                "SELECT uuidkit_node({u})::macaddr = '9f:6b:de:ce:d8:46'::macaddr"
            ));
        }
        assert_eq!(one::<i16>(&format!("SELECT uuidkit_version({v1})")), 1);
        assert_eq!(one::<i16>(&format!("SELECT uuidkit_version({v6})")), 6);
        // v3, v4, v5 (Appendix A) and the v8 examples (Appendix B), DNS namespace.
        let dns = "'6ba7b810-9dad-11d1-80b4-00c04fd430c8'::uuid";
        for (f, expected) in [
            ("uuidkit_v3", "5df41881-3aed-3515-88a7-2f4a814cf09e"),
            ("uuidkit_v5", "2ed6657d-e927-568b-95e1-2665a8aea6a2"),
            ("uuidkit_v8_sha256", "5c146b14-3c52-8afd-938a-375d0df1fbf6"),
        ] {
            assert_eq!(
                text(&format!("SELECT {f}({dns}, 'www.example.com')::text")),
                expected
            );
            assert_eq!(
                text(&format!(
                    "SELECT {f}({dns}, convert_to('www.example.com', 'UTF8'))::text"
                )),
                expected,
                "{f}(uuid, bytea)"
            );
        }
        assert_eq!(
            one::<i16>("SELECT uuidkit_version('919108f7-52d1-4320-9bac-f847db4148a8')"),
            4
        );
        // v7 (Appendix A.6): 2022-02-22 19:22:22 UTC, to the millisecond.
        let v7 = "'017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid";
        is_true(&format!(
            "SELECT uuidkit_time({v7}) = '2022-02-22 19:22:22.000+00'::timestamptz"
        ));
        assert_eq!(one::<i16>(&format!("SELECT uuidkit_version({v7})")), 7);
        // v8 (Appendix B.1): the same instant in 10 ns steps.
        let v8 = "'2489e9ad-2ee2-8e00-8ec9-32d5f69181c0'::uuid";
        is_true(&format!(
            "SELECT uuidkit_time({v8}) = '2022-02-22 19:22:22+00'::timestamptz"
        ));
        assert_eq!(one::<i16>(&format!("SELECT uuidkit_version({v8})")), 8);
    }

    #[pg_test]
    fn reading_fields_that_are_not_there_gives_null() {
        let v4 = "'919108f7-52d1-4320-9bac-f847db4148a8'::uuid";
        for f in ["uuidkit_time", "uuidkit_clock_seq", "uuidkit_node"] {
            is_true(&format!("SELECT {f}({v4}) IS NULL"));
        }
        is_true("SELECT uuidkit_version('00000000-0000-0000-0000-000000000000') IS NULL");
        is_true("SELECT uuidkit_version('ffffffff-ffff-ffff-ffff-ffffffffffff') IS NULL");
        assert_eq!(
            text("SELECT uuidkit_variant('00000000-0000-0000-0000-000000000000')"),
            "ncs"
        );
        assert_eq!(
            text("SELECT uuidkit_variant('ffffffff-ffff-ffff-ffff-ffffffffffff')"),
            "future"
        );
        assert_eq!(text("SELECT uuidkit_variant(uuidkit_v7())"), "rfc9562");
        // Strict functions: NULL in, NULL out.
        is_true("SELECT uuidkit_v5(NULL, 'a') IS NULL AND uuidkit_time(NULL) IS NULL");
    }

    #[pg_test]
    fn each_generator_makes_its_version_and_the_rfc_variant() {
        for (f, v) in [
            ("uuidkit_v1()", 1),
            ("uuidkit_v4()", 4),
            ("uuidkit_v6()", 6),
            ("uuidkit_v7()", 7),
            ("uuidkit_v7_method('counter')", 7),
            ("uuidkit_v7_method('random')", 7),
            ("uuidkit_v7_method('precision')", 7),
            ("uuidkit_v7(now())", 7),
            ("uuidkit_v8()", 8),
        ] {
            is_true(&format!(
                "SELECT bool_and(uuidkit_version(u) = {v} AND uuidkit_variant(u) = 'rfc9562')
                   FROM (SELECT {f} AS u FROM generate_series(1, 1000)) s"
            ));
        }
    }

    /// `f`'s UUIDs, in call order, strictly increase over `n` calls in this backend.
    fn strictly_increasing(f: &str, n: u32) {
        let sql = format!(
            "SELECT count(*) FILTER (WHERE NOT (u < next)) = 0 AND count(next) = {n} - 1
               FROM (SELECT u, lead(u) OVER (ORDER BY i) AS next
                       FROM (SELECT i, {f} AS u FROM generate_series(1, {n}) i) calls) pairs"
        );
        is_true(&sql);
    }

    #[pg_test]
    fn v7_strictly_increases_over_a_million_calls() {
        strictly_increasing("uuidkit_v7()", 1_000_000);
    }

    #[pg_test]
    fn v6_strictly_increases_over_a_million_calls() {
        strictly_increasing("uuidkit_v6()", 1_000_000);
    }

    #[pg_test]
    fn v8_and_every_v7_method_strictly_increase() {
        strictly_increasing("uuidkit_v8()", 100_000);
        for m in ["counter", "random", "precision"] {
            strictly_increasing(&format!("uuidkit_v7_method('{m}')"), 100_000);
        }
    }

    #[pg_test]
    fn v7_time_is_within_a_millisecond_of_clock_timestamp() {
        // The UUID's millisecond is the clock's, rounded down: not before the millisecond
        // of the reading just before, not after the reading just after.
        is_true(
            "SELECT bool_and(date_trunc('milliseconds', before) <= t AND t <= after)
               FROM (SELECT clock_timestamp() AS before,
                            uuidkit_time(uuidkit_v7()) AS t,
                            clock_timestamp() AS after
                       FROM generate_series(1, 10000)) s",
        );
        // v1, v6 and v8 keep microseconds: within one of the clock.
        for f in ["uuidkit_v1()", "uuidkit_v6()", "uuidkit_v8()"] {
            is_true(&format!(
                "SELECT bool_and(date_trunc('milliseconds', before) <= t
                                 AND t <= after + interval '1 millisecond')
                   FROM (SELECT clock_timestamp() AS before,
                                uuidkit_time({f}) AS t,
                                clock_timestamp() AS after
                           FROM generate_series(1, 1000)) s"
            ));
        }
    }

    #[pg_test]
    fn v7_at_a_time_and_range_bounds() {
        let at = "'2026-03-15 12:34:56.789+00'::timestamptz";
        is_true(&format!("SELECT uuidkit_time(uuidkit_v7({at})) = {at}"));
        is_true(&format!(
            "SELECT uuidkit_v7_bound({at}, true) <= u AND u <= uuidkit_v7_bound({at}, false)
               FROM (SELECT uuidkit_v7({at}) AS u) s"
        ));
        assert_eq!(
            text(&format!("SELECT uuidkit_v7_bound({at}, true)::text")),
            "019cf17e-1095-7000-8000-000000000000"
        );
        assert_eq!(
            text(&format!("SELECT uuidkit_v7_bound({at}, false)::text")),
            "019cf17e-1095-7fff-bfff-ffffffffffff"
        );
        // "All rows created in March" as a key range: exactly the March rows.
        Spi::run(
            "CREATE TEMP TABLE events (id uuid PRIMARY KEY, at timestamptz);
             INSERT INTO events
               SELECT uuidkit_v7(t), t
                 FROM generate_series('2026-02-27 00:00+00'::timestamptz,
                                      '2026-04-03 00:00+00', interval '17 minutes') t;
             INSERT INTO events VALUES
               (uuidkit_v7('2026-03-01 00:00+00'), '2026-03-01 00:00+00'),
               (uuidkit_v7('2026-03-31 23:59:59.999+00'), '2026-03-31 23:59:59.999+00'),
               (uuidkit_v7('2026-04-01 00:00+00'), '2026-04-01 00:00+00');",
        )
        .unwrap();
        is_true(
            "SELECT count(*) = (SELECT count(*) FROM events
                                 WHERE at >= '2026-03-01 00:00+00' AND at < '2026-04-01 00:00+00')
               FROM events
              WHERE id >= uuidkit_v7_bound('2026-03-01 00:00+00', true)
                AND id <  uuidkit_v7_bound('2026-04-01 00:00+00', true)",
        );
    }

    #[pg_test]
    fn name_based_agree_with_uuid_ossp() {
        Spi::run("CREATE EXTENSION IF NOT EXISTS \"uuid-ossp\"").unwrap();
        for ns in [
            "uuid_ns_dns()",
            "uuid_ns_url()",
            "uuid_ns_oid()",
            "uuid_ns_x500()",
            "uuidkit_v4()",
        ] {
            is_true(&format!(
                "SELECT bool_and(uuidkit_v5(ns, name) = uuid_generate_v5(ns, name)
                             AND uuidkit_v3(ns, name) = uuid_generate_v3(ns, name))
                   FROM (SELECT {ns} AS ns) n,
                        LATERAL (SELECT repeat(md5(i::text), i % 5) || chr(32 + i % 90) AS name
                                   FROM generate_series(1, 10000) i) names"
            ));
        }
    }

    #[pg_test]
    fn text_forms_round_trip() {
        let u = "'017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid";
        for (form, expected) in [
            ("hyphenated", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
            ("simple", "017f22e279b07cc398c4dc0c0c07398f"),
            ("braced", "{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}"),
            ("urn", "urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
            ("base32", "01FWHE4YDGFK1SHH6W1G60EECF"),
        ] {
            assert_eq!(
                text(&format!("SELECT uuidkit_format({u}, '{form}')")),
                expected
            );
            is_true(&format!(
                "SELECT uuidkit_parse('{expected}', '{form}') = {u}"
            ));
        }
        for form in [
            "hyphenated",
            "simple",
            "braced",
            "urn",
            "base32",
            "base58",
            "base62",
            "base64url",
        ] {
            is_true(&format!(
                "SELECT bool_and(uuidkit_parse(uuidkit_format(u, '{form}'), '{form}') = u)
                   FROM (SELECT uuidkit_v4() AS u FROM generate_series(1, 2000)
                         UNION ALL VALUES ('00000000-0000-0000-0000-000000000000'::uuid),
                                          ('ffffffff-ffff-ffff-ffff-ffffffffffff')) s"
            ));
        }
        // Without a form: the four hex forms, in either case.
        is_true(
            "SELECT uuidkit_parse('URN:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6')
                  = uuidkit_parse('f81d4fae7dec11d0a76500a0c91e6bf6')",
        );
    }

    #[pg_test(
        error = "uuidkit_parse: invalid UUID \"f81d4fae-7dec-11d0-a765_00a0c91e6bf6\": at byte 23: expected a hyphen '-', found '_'"
    )]
    fn a_malformed_uuid_names_the_byte() {
        Spi::run("SELECT uuidkit_parse('f81d4fae-7dec-11d0-a765_00a0c91e6bf6')").unwrap();
    }

    #[pg_test(
        error = "uuidkit_parse: invalid UUID \"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\": a simple UUID is 32 bytes, not 36"
    )]
    fn a_form_that_does_not_match_is_an_error() {
        Spi::run("SELECT uuidkit_parse('f81d4fae-7dec-11d0-a765-00a0c91e6bf6', 'simple')").unwrap();
    }

    #[pg_test(
        error = "uuidkit_parse: invalid UUID \"ZZZZZZZZZZZZZZZZZZZZZZZZZZ\": at byte 0: expected a base32 digit from 0 to 7 (the first holds 3 bits), found 'Z'"
    )]
    fn an_overflowing_base32_is_an_error() {
        Spi::run("SELECT uuidkit_parse('ZZZZZZZZZZZZZZZZZZZZZZZZZZ', 'base32')").unwrap();
    }

    #[pg_test(
        error = "uuidkit_format: unknown form \"hex\": expected 'hyphenated', 'simple', 'braced', 'urn', 'base32', 'base58', 'base62' or 'base64url'"
    )]
    fn an_unknown_form_is_an_error() {
        Spi::run("SELECT uuidkit_format(uuidkit_v4(), 'hex')").unwrap();
    }

    #[pg_test(
        error = "uuidkit_v7_method: unknown method \"fast\": expected 'counter', 'random' or 'precision'"
    )]
    fn an_unknown_method_is_an_error() {
        Spi::run("SELECT uuidkit_v7_method('fast')").unwrap();
    }

    #[pg_test(
        error = "uuidkit_v1_to_v6: 919108f7-52d1-4320-9bac-f847db4148a8: expected an RFC 9562 version 1 UUID, found version 4 of the rfc9562 variant"
    )]
    fn converting_another_version_is_an_error() {
        Spi::run("SELECT uuidkit_v1_to_v6('919108f7-52d1-4320-9bac-f847db4148a8')").unwrap();
    }

    #[pg_test(error = "uuidkit_v7: a v7 timestamp cannot be infinite")]
    fn an_infinite_v7_time_is_an_error() {
        Spi::run("SELECT uuidkit_v7('infinity'::timestamptz)").unwrap();
    }

    #[pg_test]
    fn bad_input_raises_errors_and_the_backend_goes_on() {
        // 9,000 malformed inputs in one backend, each of which must be rejected with an
        // SQL error of its kind (a crash would end the session and fail this test), and
        // the well-formed texts they are made from, each of which must be read back as
        // its UUID. Every input is malformed by construction, whatever its UUID: for each
        // of 1,000 UUIDs (`md5(i)`) in one of the eight forms (`f`, in turn), its text
        // with one character replaced by '!' (in no form) or by 'é' (not ASCII), with
        // 1-3 of its bytes repeated at its end or cut off its end (no form has those
        // lengths: 29-35, 37-41, 42-48 bytes are not 32, 36, 38 or 45, and the compact
        // forms take exactly 22 or 26). Each goes to `uuidkit_parse(m)` and to
        // `uuidkit_parse(m, f)`: 8 calls; and the well-formed text with the unknown form
        // 'bogus': 1 call. 9 × 1,000 = 9,000. Anything else is recorded in `surprise`.
        Spi::run(
            "CREATE TEMP TABLE surprise (input text, form text, what text);
             CREATE TEMP TABLE outcome (accepted int, rejected int,
                                        v7_accepted int, v7_rejected int);
             DO $$
             DECLARE
               forms text[] := ARRAY['hyphenated','simple','braced','urn',
                                     'base32','base58','base62','base64url'];
               accepted int := 0; rejected int := 0;
               v7_accepted int := 0; v7_rejected int := 0;
               u uuid; f text; t text; m text; n int; instant timestamptz;
             BEGIN
               FOR i IN 1..1000 LOOP
                 u := md5(i::text)::uuid;
                 f := forms[1 + i % 8];
                 t := uuidkit_format(u, f);
                 n := length(t);
                 BEGIN
                   IF uuidkit_parse(t, f) = u THEN accepted := accepted + 1;
                   ELSE INSERT INTO surprise VALUES (t, f, 'read as another UUID');
                   END IF;
                 EXCEPTION WHEN invalid_text_representation THEN
                   INSERT INTO surprise VALUES (t, f, 'well-formed, rejected');
                 END;
                 IF i % 8 < 4 THEN  -- a hex form: also without naming it
                   BEGIN
                     IF uuidkit_parse(t) = u THEN accepted := accepted + 1;
                     ELSE INSERT INTO surprise VALUES (t, NULL, 'read as another UUID');
                     END IF;
                   EXCEPTION WHEN invalid_text_representation THEN
                     INSERT INTO surprise VALUES (t, NULL, 'well-formed, rejected');
                   END;
                 END IF;
                 FOREACH m IN ARRAY ARRAY[
                   overlay(t PLACING '!' FROM 1 + i % n FOR 1),
                   overlay(t PLACING 'é' FROM 1 + (i * 7) % n FOR 1),
                   t || left(t, 1 + i % 3),
                   left(t, n - 1 - i % 3)
                 ] LOOP
                   BEGIN
                     PERFORM uuidkit_parse(m);
                     INSERT INTO surprise VALUES (m, NULL, 'malformed, accepted');
                   EXCEPTION WHEN invalid_text_representation THEN rejected := rejected + 1;
                   END;
                   BEGIN
                     PERFORM uuidkit_parse(m, f);
                     INSERT INTO surprise VALUES (m, f, 'malformed, accepted');
                   EXCEPTION WHEN invalid_text_representation THEN rejected := rejected + 1;
                   END;
                 END LOOP;
                 BEGIN
                   PERFORM uuidkit_parse(t, 'bogus');
                   INSERT INTO surprise VALUES (t, 'bogus', 'unknown form, accepted');
                 EXCEPTION WHEN invalid_parameter_value THEN rejected := rejected + 1;
                 END;
                 -- v7's range starts at 1970-01-01 00:00:00 UTC: i microseconds before it
                 -- is out of range, i - 1 after it is in.
                 instant := '1970-01-01 00:00:00+00'::timestamptz - i * interval '1 microsecond';
                 BEGIN
                   PERFORM uuidkit_v7(instant);
                   INSERT INTO surprise VALUES (instant::text, 'v7', 'before 1970, accepted');
                 EXCEPTION WHEN datetime_field_overflow THEN v7_rejected := v7_rejected + 1;
                 END;
                 instant := '1970-01-01 00:00:00+00'::timestamptz + (i - 1) * interval '1 microsecond';
                 BEGIN
                   IF uuidkit_time(uuidkit_v7(instant)) = '1970-01-01 00:00:00+00'::timestamptz THEN
                     v7_accepted := v7_accepted + 1;
                   ELSE INSERT INTO surprise VALUES (instant::text, 'v7', 'another millisecond');
                   END IF;
                 EXCEPTION WHEN datetime_field_overflow THEN
                   INSERT INTO surprise VALUES (instant::text, 'v7', 'in range, rejected');
                 END;
               END LOOP;
               INSERT INTO outcome VALUES (accepted, rejected, v7_accepted, v7_rejected);
             END $$;",
        )
        .unwrap();
        let surprises = text(
            "SELECT coalesce(string_agg(format('%s (%s): %s', input, form, what), '; '), '')
               FROM (SELECT * FROM surprise LIMIT 10) s",
        );
        assert!(surprises.is_empty(), "{surprises}");
        // 1,000 texts in their own form, and the 500 in a hex form without it.
        assert_eq!(one::<i32>("SELECT accepted FROM outcome"), 1500);
        assert_eq!(one::<i32>("SELECT rejected FROM outcome"), 9000);
        assert_eq!(one::<i32>("SELECT v7_rejected FROM outcome"), 1000);
        assert_eq!(one::<i32>("SELECT v7_accepted FROM outcome"), 1000);
        is_true("SELECT uuidkit_version(uuidkit_v7()) = 7");
    }
}

/// Several backends at once, each its own session: no UUID repeats across them, and each
/// backend's v6 and v7 strictly increase. Plain tests (not `#[pg_test]`): they open their
/// own connections to the server the framework started.
#[cfg(test)]
mod concurrent {
    use std::collections::HashSet;
    use std::sync::{Arc, Barrier};

    const BACKENDS: usize = 8;
    const PER_BACKEND: usize = 50_000;

    fn ensure_server() {
        pgrx_tests::run_test(
            "uuidkit_ready",
            None,
            crate::pg_test::postgresql_conf_options(),
        )
        .expect("the test server starts");
    }

    /// Runs `SELECT f::text` `PER_BACKEND` times in each of `BACKENDS` sessions at once.
    fn from_backends(f: &'static str) -> Vec<Vec<String>> {
        ensure_server();
        let start = Arc::new(Barrier::new(BACKENDS));
        let threads: Vec<_> = (0..BACKENDS)
            .map(|_| {
                let start = Arc::clone(&start);
                std::thread::spawn(move || {
                    let (mut client, _) = pgrx_tests::client().expect("a connection");
                    start.wait();
                    let sql = format!(
                        "SELECT {f}::text FROM generate_series(1, {PER_BACKEND}) i ORDER BY i"
                    );
                    client
                        .query(&sql, &[])
                        .expect("the query runs")
                        .iter()
                        .map(|row| row.get::<_, String>(0))
                        .collect::<Vec<String>>()
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    }

    fn no_duplicates(f: &'static str, ordered: bool) {
        let all = from_backends(f);
        let mut seen = HashSet::new();
        for backend in &all {
            assert_eq!(backend.len(), PER_BACKEND);
            if ordered {
                // The text form of v6 and v7 sorts as the value does.
                assert!(
                    backend.windows(2).all(|w| w[0] < w[1]),
                    "{f}: not strictly increasing within a backend"
                );
            }
            for u in backend {
                assert!(seen.insert(u.clone()), "{f}: {u} twice");
            }
        }
        assert_eq!(seen.len(), BACKENDS * PER_BACKEND);
    }

    #[test]
    fn v4_from_8_backends_never_repeats() {
        no_duplicates("uuidkit_v4()", false);
    }

    #[test]
    fn v7_from_8_backends_never_repeats() {
        no_duplicates("uuidkit_v7()", true);
    }

    #[test]
    fn v6_and_v1_from_8_backends_never_repeat() {
        no_duplicates("uuidkit_v6()", true);
        no_duplicates("uuidkit_v1()", false);
    }

    #[test]
    fn v8_from_8_backends_never_repeats() {
        no_duplicates("uuidkit_v8()", true);
    }
}
