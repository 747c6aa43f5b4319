"""The documentation says what the CLI does: every option and finding code the docs name
exists, every option and code the CLI has is documented, and every link leads somewhere."""

from __future__ import annotations

import importlib.util
import re

import pytest
import typer.main
from conftest import ROOT, cli

from dspark_ckpt.cli import app
from dspark_ckpt.rules.codes import CODES

DOCS = ROOT / "docs"
PAGES = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *DOCS.glob("*.md")])
# the page whose "## Options" table documents each command
COMMAND_PAGES = {
    "inspect": "inspect.md",
    "fix": "fix.md",
    "verify": "verify.md",
    "check": "ci.md",
    "profiles": "profiles.md",
    "explain": "findings.md",
}
HELP = {"-h", "--help"}
# options of other tools the docs name (pip, pre-commit; ruff, compared with in ci.md)
# other tools' options the pages show (pip, the snapshot tool)
FOREIGN = {"--index-url", "--extra-index-url", "--output-file", "--freeze", "--no-deps"}
FOREIGN |= {"--repo", "--inputs", "--out", "--compare"}
FOREIGN |= {"--wheels"}  # tools/fetch_sources.py
FOREIGN |= {"--vocab", "--devices", "--repeat", "--shards"}  # benchmarks/*.py
FOREIGN |= {"--sample", "--seed", "--max-children", "--all-operators"}  # tools/mutation.py
FOREIGN |= {"--area", "--again", "--full", "--survivors"}  # tools/mutation.py
CELL_SPLIT = re.compile(r"(?<!\\)\|")
OPTION = re.compile(r"(?<![\w-])--?[a-z][a-z0-9-]*")
LONG_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def commands():
    group = typer.main.get_command(app)
    return group, group.commands


def cli_names(command) -> set[str]:
    """The options (and argument metavars) a command really has."""
    names = set()
    for p in command.params:
        if p.param_type_name == "argument":
            names.add(p.metavar or p.name.upper())
        else:
            names.update(p.opts, p.secondary_opts)
    return names - HELP


def options_table(page: str) -> list[str]:
    """The first cells of the page's "## Options" table."""
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("## Options"))
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        if line.startswith("|") and not line.startswith("|---"):
            rows.append(CELL_SPLIT.split(line)[1].strip())
    return rows[1:]  # the header row


def documented_names(page: str) -> set[str]:
    names = set()
    for cell in options_table(page):
        found = OPTION.findall(cell) + re.findall(r"`([A-Z][A-Z_]+)`", cell)
        assert found, f"{page}: an options row names no option: {cell}"
        names.update(found)
    return names


@pytest.mark.parametrize("command", sorted(COMMAND_PAGES))
def test_every_option_is_documented_and_every_documented_option_exists(command):
    _, cmds = commands()
    assert set(cmds) == set(COMMAND_PAGES)  # a new command needs its page
    documented = documented_names(COMMAND_PAGES[command])
    real = cli_names(cmds[command])
    assert documented - HELP == real, (
        f"docs/{COMMAND_PAGES[command]}: undocumented {sorted(real - documented)}, "
        f"no such option {sorted(documented - HELP - real)}"
    )


def test_every_option_the_docs_mention_exists():
    group, cmds = commands()
    real = set().union(*(cli_names(c) for c in cmds.values()), cli_names(group), HELP)
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        unknown = set(LONG_OPTION.findall(text)) - real - FOREIGN
        assert not unknown, f"{page.name}: no such option {sorted(unknown)}"


def test_every_finding_code_is_documented_with_its_severity():
    table = (DOCS / "findings.md").read_text(encoding="utf-8")
    for code in CODES.values():
        assert f"| `{code.code}` | {code.severity} |" in table, code.code
    rows = re.findall(r"^\| `(DSC\d{3})` \|", table, flags=re.M)
    assert sorted(rows) == sorted(c.code for c in CODES.values())


def test_the_finding_codes_section_is_what_the_registry_gives():
    spec = importlib.util.spec_from_file_location(
        "findings_table", ROOT / "tools/findings_table.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    text = (DOCS / "findings.md").read_text(encoding="utf-8")
    assert text == tool.page(text), "run python tools/findings_table.py"
    text = (DOCS / "fix.md").read_text(encoding="utf-8")
    assert text == tool.fix_page(text), "run python tools/findings_table.py"


def test_every_finding_code_the_docs_mention_exists():
    known = {c.code for c in CODES.values()}
    for page in PAGES:
        unknown = set(re.findall(r"DSC\d{3}", page.read_text(encoding="utf-8"))) - known
        assert not unknown, f"{page.name}: no such finding code {sorted(unknown)}"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {slug(h) for h in re.findall(r"^#+ (.*)$", text, flags=re.M)}


def test_every_link_between_the_pages_resolves():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+://", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            assert dest.exists(), f"{page.name}: broken link {target}"
            if anchor:
                assert anchor in anchors(dest), f"{page.name}: no heading for {target}"


def test_reading_the_output_is_one_click_from_the_top():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    top = readme.split("\n## ", 1)[0]  # before the first section
    assert "](#reading-the-output)" in top
    assert "reading-the-output" in anchors(ROOT / "README.md")


def test_the_readme_example_is_what_inspect_prints_at_80_columns(monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "$ dspark-ckpt inspect fixtures/padded --target fixtures/targets/small\n"
    shown = readme.split(command, 1)[1].split("```", 1)[0]
    r = cli(*command.split()[2:], env={"COLUMNS": "80"})
    assert r.exit_code == 0
    assert shown == "".join(line.rstrip() + "\n" for line in r.stdout.splitlines())


# a path of ours, as the pages name it: from the repository root or from the package
OWN_PATH = re.compile(
    r"`((?:dspark_ckpt/|tools/|tests/|benchmarks/|fixtures/)?"
    r"(?:source|facts|profiles|rules|commands|output|cli|tools|tests|benchmarks|fixtures)"
    r"/[\w./-]*\.(?:py|md|json))`"
)


def test_every_path_of_ours_the_pages_name_exists():
    """A page that names a module after it moved sends a reader nowhere."""
    package = ROOT / "dspark_ckpt"
    for page in PAGES:
        for path in OWN_PATH.findall(page.read_text(encoding="utf-8")):
            assert (ROOT / path).exists() or (package / path).exists(), f"{page.name}: {path}"
