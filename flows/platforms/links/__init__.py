"""The self-hosted route: invite links to hitflow's own task server; nobody is paid through a platform."""
