"""The workbench: a small web app for the people around the agent, served by ``schemaseek
serve`` at ``/`` on the service's port, behind the service's tokens.

* :mod:`~schemaseek.web.app` routes, authenticates and renders (Jinja templates, one CSS and
  one JS file, all shipped in the package: no build step);
* :mod:`~schemaseek.web.views` the search page (signal bars, paths, selections, joins);
* :mod:`~schemaseek.web.actions` the glossary and eval pages; :mod:`~schemaseek.web.entry_form`
  the entry editor; :mod:`~schemaseek.web.trials` eval runs and glossary dry runs over the
  labelled questions; :mod:`~schemaseek.web.history` the runs kept; :mod:`~schemaseek.web.plot`
  the charts;
* :mod:`~schemaseek.web.hooks` what the host hands it (it never imports the service).
"""

from schemaseek.web.app import Workbench
from schemaseek.web.hooks import AccessDenied, ActionFailed, Viewer, WorkbenchHooks

__all__ = ["AccessDenied", "ActionFailed", "Viewer", "Workbench", "WorkbenchHooks"]
