//! `rusqlite`: a 16-byte `BLOB`; `TEXT` holding a UUID is read too.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use super::DecodeError;
use crate::uuid::Uuid;

impl ToSql for Uuid {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Blob(self.as_bytes())))
    }
}

impl FromSql for Uuid {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Uuid> {
        match value {
            ValueRef::Blob(b) => DecodeError::from_binary(b),
            ValueRef::Text(t) => DecodeError::from_text(t),
            _ => return Err(FromSqlError::InvalidType),
        }
        .map_err(|e| FromSqlError::Other(Box::new(e)))
    }
}
