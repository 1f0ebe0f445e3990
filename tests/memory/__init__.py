"""Tests for coopgraph.memory."""
