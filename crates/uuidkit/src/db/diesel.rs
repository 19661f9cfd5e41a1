//! `diesel`: PostgreSQL's `Uuid` SQL type; SQLite as `Binary` (16 bytes; a `TEXT` UUID
//! is read too). The `AsExpression` and `FromSqlRow` derives are on `Uuid` itself.

use std::io::Write;

use diesel::deserialize::{self, FromSql};
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::{Binary, Uuid as SqlUuid};
use diesel::sqlite::{Sqlite, SqliteType, SqliteValue};

use super::DecodeError;
use crate::uuid::Uuid;

impl ToSql<SqlUuid, Pg> for Uuid {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
        out.write_all(self.as_bytes())?;
        Ok(IsNull::No)
    }
}

impl FromSql<SqlUuid, Pg> for Uuid {
    fn from_sql(value: PgValue<'_>) -> deserialize::Result<Uuid> {
        Ok(DecodeError::from_binary(value.as_bytes())?)
    }
}

impl ToSql<Binary, Sqlite> for Uuid {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Sqlite>) -> serialize::Result {
        out.set_value(self.as_bytes().as_slice());
        Ok(IsNull::No)
    }
}

impl FromSql<Binary, Sqlite> for Uuid {
    fn from_sql(mut value: SqliteValue<'_, '_, '_>) -> deserialize::Result<Uuid> {
        Ok(match value.value_type() {
            Some(SqliteType::Text) => DecodeError::from_text(value.read_text().as_bytes())?,
            _ => DecodeError::from_binary(value.read_blob())?,
        })
    }
}
