"""Rules for scipy, in a folder per scipy module; each is imported when that module is (``chainrules.rules``)."""
