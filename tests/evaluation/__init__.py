"""Tests of schemaseek.evaluation, the catalog source, the disk cache and ``schemaseek eval``."""
