"""Host-side programs: simulator, build, deploy, benchmarks, pay-table math, audit."""
