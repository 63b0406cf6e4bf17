"""Build the optional C scanner (tracetui/core/_scan.c); everything else is in pyproject.toml.

The extension is optional: without a compiler the install still succeeds and the index uses its
pure-Python path (same results, slower on big runs).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("tracetui.core._scan", ["tracetui/core/_scan.c"], optional=True,
                  extra_compile_args=["-O2"]),
    ],
)
