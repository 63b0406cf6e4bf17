"""The pure core: no module under here may import Textual (tests/unit/test_import_hygiene.py)."""
