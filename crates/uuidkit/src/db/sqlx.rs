//! `sqlx`: PostgreSQL's `uuid`; SQLite as a 16-byte `BLOB` (a `TEXT` UUID is read too).

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::postgres::types::Oid;
use sqlx::postgres::{
    PgArgumentBuffer, PgHasArrayType, PgTypeInfo, PgValueFormat, PgValueRef, Postgres,
};
use sqlx::sqlite::{Sqlite, SqliteArgumentValue, SqliteTypeInfo, SqliteValueRef};
use sqlx::{Decode, Encode, Type, TypeInfo, ValueRef};

use super::DecodeError;
use crate::uuid::Uuid;

/// PostgreSQL's OID for `uuid` (`pg_type.h`).
const UUID_OID: Oid = Oid(2950);
/// PostgreSQL's OID for `uuid[]`.
const UUID_ARRAY_OID: Oid = Oid(2951);

impl Type<Postgres> for Uuid {
    fn type_info() -> PgTypeInfo {
        PgTypeInfo::with_oid(UUID_OID)
    }
}

impl PgHasArrayType for Uuid {
    fn array_type_info() -> PgTypeInfo {
        PgTypeInfo::with_oid(UUID_ARRAY_OID)
    }
}

impl Encode<'_, Postgres> for Uuid {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        buf.extend_from_slice(self.as_bytes());
        Ok(IsNull::No)
    }
}

impl Decode<'_, Postgres> for Uuid {
    fn decode(value: PgValueRef<'_>) -> Result<Uuid, BoxDynError> {
        Ok(match value.format() {
            PgValueFormat::Binary => DecodeError::from_binary(value.as_bytes()?)?,
            PgValueFormat::Text => DecodeError::from_text(value.as_bytes()?)?,
        })
    }
}

impl Type<Sqlite> for Uuid {
    fn type_info() -> SqliteTypeInfo {
        <&[u8] as Type<Sqlite>>::type_info()
    }

    fn compatible(ty: &SqliteTypeInfo) -> bool {
        <&[u8] as Type<Sqlite>>::compatible(ty) || <&str as Type<Sqlite>>::compatible(ty)
    }
}

impl<'q> Encode<'q, Sqlite> for Uuid {
    fn encode_by_ref(
        &self,
        args: &mut Vec<SqliteArgumentValue<'q>>,
    ) -> Result<IsNull, BoxDynError> {
        args.push(SqliteArgumentValue::Blob(std::borrow::Cow::Owned(
            self.as_bytes().to_vec(),
        )));
        Ok(IsNull::No)
    }
}

impl<'r> Decode<'r, Sqlite> for Uuid {
    fn decode(value: SqliteValueRef<'r>) -> Result<Uuid, BoxDynError> {
        let text = value.type_info().name() == "TEXT";
        if text {
            let s = <&str as Decode<Sqlite>>::decode(value)?;
            Ok(DecodeError::from_text(s.as_bytes())?)
        } else {
            let b = <&[u8] as Decode<Sqlite>>::decode(value)?;
            Ok(DecodeError::from_binary(b)?)
        }
    }
}
