"""``softpluslib.py`` is a library's module that ``check --import`` loads in its own process: pytest does not
import it, so its rules and cases stay out of the test session."""

collect_ignore = ["softpluslib.py"]
