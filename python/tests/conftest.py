"""Shared setup: every test runs a real Python program in a subprocess, as
`perflab run` would, because perflab reads its environment once, at import."""

import json
import os
import subprocess
import sys
import textwrap

import pytest


class Program:
    def __init__(self, directory):
        self.directory = directory

    def run(self, source, env=None, profile=True, check=True, args=()):
        """Writes ``source`` to prog.py and runs it; returns (profile or None, completed process)."""
        script = self.directory / "prog.py"
        script.write_text(textwrap.dedent(source))
        profile_path = self.directory / "profile.json"
        if profile_path.exists():
            profile_path.unlink()
        environment = {k: v for k, v in os.environ.items() if not k.startswith("PERFLAB_")}
        if profile:
            environment["PERFLAB_PROFILE"] = str(profile_path)
        environment.update(env or {})
        completed = subprocess.run([sys.executable, str(script), *args], cwd=self.directory,
                                   env=environment, capture_output=True, text=True)
        if check:
            assert completed.returncode == 0, completed.stderr
        document = json.loads(profile_path.read_text()) if profile_path.exists() else None
        return document, completed


@pytest.fixture
def program(tmp_path):
    return Program(tmp_path)


def span(profile, name):
    for record in profile["spans"]:
        if record["name"] == name:
            return record
    raise AssertionError("no span %r in %s" % (name, [s["name"] for s in profile["spans"]]))


def warnings_of(profile, kind):
    return [warning for warning in profile["warnings"] if warning["kind"] == kind]
