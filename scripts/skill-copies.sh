#!/usr/bin/env bash
# Copies of the skill tree (skills/kapi/) and of kapi's Claude Code hooks (host/hooks/claude-code.json),
# never a second tree: a test fails when a copy differs.
#
#   bash scripts/skill-copies.sh plugin-bundle        # packages/kapi-claude-plugin/ (Claude Code plugin)
#   bash scripts/skill-copies.sh dev-skills           # this repo's own .claude/skills/kapi/SKILL.md
#   bash scripts/skill-copies.sh publish-skill DEST   # the portable skill (SKILL.md + references) into DEST/kapi/
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SKILL="$ROOT/skills/kapi"
[ -f "$SKILL/SKILL.md" ] || { echo "skill-copies: no $SKILL/SKILL.md" >&2; exit 1; }

copy_tree() { # copy_tree DEST: the skill as shipped (retired.sha256 is kapi's, not the skill's)
  local dest=$1
  rm -rf "$dest"
  mkdir -p "$dest"
  (cd "$SKILL" && find . -type f ! -name retired.sha256 -print0 | while IFS= read -r -d '' f; do
    mkdir -p "$dest/$(dirname "$f")"
    cp "$f" "$dest/$f"
  done)
}

case "${1:-}" in
  plugin-bundle)
    P="$ROOT/packages/kapi-claude-plugin"
    mkdir -p "$P/.claude-plugin" "$P/hooks"
    VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -1)
    cat > "$P/.claude-plugin/plugin.json" <<JSON
{
  "name": "kapi",
  "version": "$VERSION",
  "description": "The project's own context (terms, voice, rules) for writing its prose: kapi's skill, its MCP server and its hooks."
}
JSON
    cat > "$P/.mcp.json" <<'JSON'
{
  "mcpServers": {
    "kapi": {
      "command": "kapi",
      "args": ["mcp"]
    }
  }
}
JSON
    # The hooks `kapi init` merges into .claude/settings.json, verbatim (a test compares them).
    cp "$ROOT/host/hooks/claude-code.json" "$P/hooks/hooks.json"
    copy_tree "$P/skills/kapi"
    echo "plugin bundle in $P"
    ;;
  dev-skills)
    mkdir -p "$ROOT/.claude/skills/kapi"
    cp "$SKILL/SKILL.md" "$ROOT/.claude/skills/kapi/SKILL.md"
    echo "copied SKILL.md to .claude/skills/kapi/"
    ;;
  publish-skill)
    DEST="${2:?usage: skill-copies.sh publish-skill DEST}"
    copy_tree "$DEST/kapi"
    echo "portable skill in $DEST/kapi"
    ;;
  *)
    echo "usage: skill-copies.sh plugin-bundle | dev-skills | publish-skill DEST" >&2
    exit 2
    ;;
esac
