//! `postgres-types` (`postgres`, `tokio-postgres`): `ToSql`/`FromSql` for `uuid` columns.

use std::error::Error;

use bytes::BytesMut;
use postgres_types::{FromSql, IsNull, ToSql, Type, accepts, to_sql_checked};

use super::DecodeError;
use crate::uuid::Uuid;

impl ToSql for Uuid {
    fn to_sql(&self, _: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        out.extend_from_slice(self.as_bytes());
        Ok(IsNull::No)
    }

    accepts!(UUID);
    to_sql_checked!();
}

impl<'a> FromSql<'a> for Uuid {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Uuid, Box<dyn Error + Sync + Send>> {
        Ok(DecodeError::from_binary(raw)?)
    }

    accepts!(UUID);
}
