"""Build the optional C scanner (tracetui/store/_scan.c); everything else is in pyproject.toml.

The extension is optional: without a compiler the install still succeeds and the index uses its
pure-Python path (same results, slower on big runs).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "tracetui.store._scan",
            ["tracetui/store/_scan.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
    ],
)
