"""The optional C accelerator of the span probe (src/perflab/_accelerator.c).

Built when a C compiler and Python's headers are there; when the build
fails, setuptools leaves it out (``optional=True``) and the package is pure
Python, writing the same document."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("perflab._accelerator", sources=["src/perflab/_accelerator.c"], optional=True),
    ],
)
