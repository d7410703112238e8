"""Exports of the released questions: release.py picks them (policy, hashes, the JSON document);
sqlite.py, site.py and anki.py write the other formats. They consume models, never run checks: the
CLI runs the audit and hands its report to `release.select`.

Imported only by `qbank export`, so an audit never pays for Jinja2, markdown-it or genanki.
"""
