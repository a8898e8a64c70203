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
    rm -f "$stamp"
    local log
    log="$(mktemp)"
    # The stamp is written only after an install that worked: a failed one is tried again next time.
    if ! .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[$extras]" > "$log" 2>&1; then
      cat "$log" >&2
      rm -f "$log"
      echo "setting up .venv failed: see the pip output above" >&2
      return 1
    fi
    grep -v "^WARNING: Location" "$log" || true
    rm -f "$log"
    echo "$want" > "$stamp"
  fi
}
