"""Modules that run inside other programs, not in biomd: each imports nothing from biomd
(an import-linter contract keeps it so) and needs nothing its host lacks. `biomd hermes
install` copies hermes/ into Hermes Agent's plugins folder."""
