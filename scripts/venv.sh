# Shared by run.sh and test.sh: create .venv and (re)install barbu with the given extras
# whenever pyproject.toml has changed since the last install.
ensure_venv() {
  local extras="$1"
  local stamp=".venv/.installed-$extras"
  local want
  want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
  fi
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[$extras]" 2>&1 \
      | grep -v "^WARNING: Location" || true
    echo "$want" > "$stamp"
  fi
}
