//! Tests of the state store.
