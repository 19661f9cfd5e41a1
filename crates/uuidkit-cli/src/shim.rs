//! TEMPORARY stand-in for the generator API being written in the library
//! (uuidkit::gen, uuidkit::node::NodeStrategy). Deleted once the library has it.
#![allow(dead_code, missing_docs)]

pub mod node {
    use std::fmt;
    use std::str::FromStr;
    use uuidkit::NodeId;
    use uuidkit::node::NodeParseError;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum NodeStrategy {
        Static,
        Random,
        Mac,
        Hash,
        Fixed(NodeId),
    }

    impl FromStr for NodeStrategy {
        type Err = NodeParseError;
        fn from_str(s: &str) -> Result<Self, NodeParseError> {
            Ok(match s {
                "static" => NodeStrategy::Static,
                "random" => NodeStrategy::Random,
                "mac" => NodeStrategy::Mac,
                "hash" => NodeStrategy::Hash,
                _ => NodeStrategy::Fixed(s.parse()?),
            })
        }
    }

    impl NodeStrategy {
        pub fn from_env() -> Result<Option<NodeStrategy>, NodeParseError> {
            match std::env::var("UUIDKIT_NODE") {
                Ok(v) => v.parse().map(Some),
                Err(_) => Ok(None),
            }
        }
    }

    impl fmt::Display for NodeStrategy {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{self:?}")
        }
    }
}

pub mod gen {
    use std::fmt;

    #[derive(Debug)]
    pub struct GenError(pub String);
    impl fmt::Display for GenError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(&self.0)
        }
    }
    impl std::error::Error for GenError {}

    pub mod gregorian {
        use super::GenError;
        use crate::shim::node::NodeStrategy;
        use uuidkit::layout::{ClockSequence, GregorianFields, v2};
        use uuidkit::random::{Csprng, RngCore};
        use uuidkit::time::{Clock, GregorianTimestamp, SystemClock};
        use uuidkit::{NodeId, Uuid, Version};

        pub enum OverrunPolicy {
            Wait,
            Error,
            BumpClockSeq,
            Advance,
        }

        pub struct GregorianGenerator<C: Clock = SystemClock, R: RngCore = Csprng> {
            version: Version,
            clock: C,
            rng: R,
            node: Option<NodeId>,
            cs: Option<ClockSequence>,
            last: u64,
        }

        impl GregorianGenerator {
            pub fn v1() -> Self {
                Self::with_sources(Version::V1, SystemClock, Csprng)
            }
            pub fn v6() -> Self {
                Self::with_sources(Version::V6, SystemClock, Csprng)
            }
        }

        impl<C: Clock, R: RngCore> GregorianGenerator<C, R> {
            pub fn with_sources(version: Version, clock: C, rng: R) -> Self {
                GregorianGenerator {
                    version,
                    clock,
                    rng,
                    node: None,
                    cs: None,
                    last: 0,
                }
            }
            pub fn with_node(mut self, strategy: NodeStrategy) -> Self {
                if let NodeStrategy::Fixed(n) = strategy {
                    self.node = Some(n);
                }
                self
            }
            pub fn with_clock_seq(mut self, cs: ClockSequence) -> Self {
                self.cs = Some(cs);
                self
            }
            pub fn with_overrun(self, _policy: OverrunPolicy) -> Self {
                self
            }
            fn fields(&mut self) -> Result<GregorianFields, GenError> {
                let t = GregorianTimestamp::from_unix(self.clock.now())
                    .map_err(|e| GenError(e.to_string()))?;
                let ticks = t.ticks().max(self.last + 1);
                self.last = ticks;
                let node = match self.node {
                    Some(n) => n,
                    None => {
                        let n = NodeId::from_u64(self.rng.next_u64() >> 16)
                            .unwrap()
                            .with_multicast();
                        self.node = Some(n);
                        n
                    }
                };
                let cs = match self.cs {
                    Some(c) => c,
                    None => {
                        let c = ClockSequence::from_masked(self.rng.next_u32() as u16);
                        self.cs = Some(c);
                        c
                    }
                };
                Ok(GregorianFields {
                    timestamp: GregorianTimestamp::from_ticks(ticks).unwrap(),
                    clock_seq: cs,
                    node,
                })
            }
            pub fn next(&mut self) -> Result<Uuid, GenError> {
                let f = self.fields()?;
                Ok(if self.version == Version::V6 {
                    uuidkit::layout::v6::encode(&f)
                } else {
                    uuidkit::layout::v1::encode(&f)
                })
            }
            pub fn next_v2(&mut self, domain: v2::Domain, local_id: u32) -> Result<Uuid, GenError> {
                let f = self.fields()?;
                v2::encode(&v2::Fields {
                    local_id,
                    domain,
                    timestamp: f.timestamp,
                    clock_seq: (f.clock_seq.get() >> 8) as u8,
                    node: f.node,
                })
                .map_err(|e| GenError(e.to_string()))
            }
        }
    }

    pub mod unix {
        use uuidkit::Uuid;
        use uuidkit::random::{Csprng, RngCore};
        use uuidkit::time::{Clock, SystemClock};

        #[derive(Clone, Copy)]
        pub enum V7Method {
            Counter,
            Random,
            Precision,
        }

        pub struct UnixGenerator<C = SystemClock, R = Csprng> {
            clock: C,
            rng: R,
            last: u128,
        }
        impl UnixGenerator {
            pub fn new(method: V7Method) -> Self {
                Self::with_sources(method, SystemClock, Csprng)
            }
        }
        impl<C: Clock, R: RngCore> UnixGenerator<C, R> {
            pub fn with_sources(_method: V7Method, clock: C, rng: R) -> Self {
                UnixGenerator {
                    clock,
                    rng,
                    last: 0,
                }
            }
            pub fn next(&mut self) -> Uuid {
                let ms = uuidkit::time::unix_millis_48(self.clock.now()).unwrap();
                let r = (self.rng.next_u64() as u128) << 10;
                let v = ((ms as u128) << 80 | r).max(self.last + (1 << 10));
                self.last = v;
                Uuid::from_u128(v).with_version(uuidkit::Version::V7)
            }
        }
    }

    pub mod custom {
        use uuidkit::Uuid;
        use uuidkit::random::{Csprng, RngCore};
        use uuidkit::time::{Clock, SystemClock};

        pub struct CustomGenerator<C = SystemClock, R = Csprng> {
            clock: C,
            rng: R,
        }
        impl CustomGenerator {
            pub fn new() -> Self {
                Self::with_sources(SystemClock, Csprng)
            }
        }
        impl<C: Clock, R: RngCore> CustomGenerator<C, R> {
            pub fn with_sources(clock: C, rng: R) -> Self {
                CustomGenerator { clock, rng }
            }
            pub fn next(&mut self) -> Uuid {
                let t = uuidkit::time::unix_10ns_60(self.clock.now()).unwrap();
                uuidkit::layout::v8::encode_time_based(&uuidkit::layout::v8::TimeBasedFields {
                    timestamp: t,
                    rest: self.rng.next_u64() >> 2,
                })
                .unwrap()
            }
        }
    }
}
