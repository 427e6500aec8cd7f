//! Which surface a call came through — a shell (the CLI and hooks) or an MCP client — so a
//! message or hint names what that caller can type: a flag and a command, or a tool and a field.

/// The surface a call came through; the CLI's unless the MCP server says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Surface {
    #[default]
    Cli,
    Mcp,
}

impl Surface {
    /// An input by its name: `--path` on the command line, `path` (a tool's field) over MCP.
    pub fn field(self, name: &str) -> String {
        match self {
            Surface::Cli => format!("`--{name}`"),
            Surface::Mcp => format!("`{name}`"),
        }
    }

    /// The project input: `-p PATH` on the command line, the `project` field over MCP.
    pub fn project(self) -> &'static str {
        match self {
            Surface::Cli => "`-p PATH`",
            Surface::Mcp => "`project` (the `kapi.yaml`, or any file in the project)",
        }
    }

    /// One of two texts: what a shell user types, or what an MCP client calls.
    pub fn pick(self, cli: impl Into<String>, mcp: impl Into<String>) -> String {
        match self {
            Surface::Cli => cli.into(),
            Surface::Mcp => mcp.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_surface_names_its_own_input() {
        assert_eq!(Surface::Cli.field("path"), "`--path`");
        assert_eq!(Surface::Mcp.field("path"), "`path`");
        assert!(Surface::Mcp.project().contains("`project`"));
        assert!(!Surface::Mcp.project().contains("-p"));
        assert_eq!(Surface::default(), Surface::Cli);
    }
}
