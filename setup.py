"""Build the optional C scanner (tracetui/store/_scan.c), the cached columns' bounds check
(tracetui/store/_bounds.c), the redactor's hint finder
(tracetui/record/_hints.c) and the OTLP span writer (tracetui/export/_otlp_row.c); everything
else is in pyproject.toml.

The extension is optional: without a compiler the install still succeeds and the index uses its
pure-Python path, the redactor its own word search and the OTLP export its Python rows (same
results, slower on big runs).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "tracetui.store._scan",
            ["tracetui/store/_scan.c"],
            # One translation unit: _scan.c includes its parts (rebuild when they change).
            depends=[
                "tracetui/store/_scan_words.h",
                "tracetui/store/_scan_shuffle.h",
                "tracetui/store/_scan_json.h",
                "tracetui/store/_scan_notes.h",
                "tracetui/store/_scan_facts.h",
                "tracetui/store/_scan_bulk.h",
            ],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "tracetui.store._bounds",
            ["tracetui/store/_bounds.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "tracetui.record._hints",
            ["tracetui/record/_hints.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "tracetui.export._otlp_row",
            ["tracetui/export/_otlp_row.c"],
            # One translation unit: _otlp_row.c includes its parts (rebuild when they change).
            depends=[
                "tracetui/export/_otlp_json.h",
                "tracetui/export/_otlp_sha.h",
                "tracetui/export/_otlp_time.h",
                "tracetui/export/_otlp_fields.h",
                "tracetui/export/_otlp_judge.h",
                "tracetui/export/_otlp_span.h",
                "tracetui/export/_otlp_proto.h",
                "tracetui/export/_otlp_build.h",
                "tracetui/export/_otlp_module.h",
            ],
            optional=True,
            extra_compile_args=["-O2"],
        ),
    ],
)
