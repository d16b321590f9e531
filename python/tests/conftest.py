"""Shared setup: every test runs a real Python program in a subprocess, as
`perflab run` would, because perflab reads its environment once, at import.

Every test that runs a program runs twice: through the C accelerator and
with ``PERFLAB_PURE_PYTHON=1`` through the pure-Python probes. Where the
accelerator was not built, its half is skipped with the reason."""

import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest


PROBES = ("accelerated", "pure")


def accelerator_built():
    """Whether the perflab that programs import has its C accelerator,
    found without importing perflab here (its import reads the environment)."""
    package = importlib.util.find_spec("perflab")
    return package is not None and any(
        os.path.exists(os.path.join(folder, "_accelerator" + suffix))
        for folder in package.submodule_search_locations or ()
        for suffix in importlib.machinery.EXTENSION_SUFFIXES)


class Program:
    def __init__(self, directory, probes="pure"):
        self.directory = directory
        self.probes = probes

    def run(self, source, env=None, profile=True, check=True, args=()):
        """Writes ``source`` to prog.py and runs it; returns (profile or None, completed process)."""
        script = self.directory / "prog.py"
        script.write_text(textwrap.dedent(source))
        profile_path = self.directory / "profile.json"
        if profile_path.exists():
            profile_path.unlink()
        environment = {k: v for k, v in os.environ.items() if not k.startswith("PERFLAB_")}
        if self.probes == "pure":
            environment["PERFLAB_PURE_PYTHON"] = "1"
        if profile:
            environment["PERFLAB_PROFILE"] = str(profile_path)
        environment.update(env or {})
        completed = subprocess.run([sys.executable, str(script), *args], cwd=self.directory,
                                   env=environment, capture_output=True, text=True)
        if check:
            assert completed.returncode == 0, completed.stderr
        document = json.loads(profile_path.read_text()) if profile_path.exists() else None
        return document, completed


@pytest.fixture(params=PROBES)
def program(request, tmp_path):
    if request.param == "accelerated" and not accelerator_built():
        pytest.skip("perflab._accelerator is not built (pip builds it where a C compiler and "
                    "Python's headers are installed)")
    return Program(tmp_path, request.param)


def span(profile, name):
    for record in profile["spans"]:
        if record["name"] == name:
            return record
    raise AssertionError("no span %r in %s" % (name, [s["name"] for s in profile["spans"]]))


def warnings_of(profile, kind):
    return [warning for warning in profile["warnings"] if warning["kind"] == kind]
