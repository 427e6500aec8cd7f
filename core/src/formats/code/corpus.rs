//! Real source files from well-known projects (`testdata/formats/code/<language>/`): each
//! reads, writes back byte for byte, and takes an edit of a comment that still parses.
