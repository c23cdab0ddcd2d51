# Unit tests (Check) and integration tests (shell, real namespaces/cgroups).
