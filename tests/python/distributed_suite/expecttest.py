"""A stand-in for the `expecttest` module, which Debian does not package.

PyTorch's test utilities subclass expecttest.TestCase and read its ACCEPT
flag; the distributed suite never compares against an expected-output file,
so what it needs is a TestCase whose assertExpectedInline fails on a
mismatch (it never rewrites the source, as the real module can with ACCEPT).
"""
import unittest

ACCEPT = False


class TestCase(unittest.TestCase):
    longMessage = True

    def assertExpectedInline(self, actual, expect, skip=0):
        self.assertEqual(expect, actual, "expected inline output differs (this stand-in cannot accept new output)")
