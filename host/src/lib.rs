//! kapi-host: the runtime every surface shares.
