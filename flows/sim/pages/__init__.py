"""How a simulated person works a page: fills a form hitflow did not write (any_form), in a headless
browser (browser_worker), through an ExternalQuestion or a link (external_work, volunteers).
What they answer comes from the crowd below (people); no marketplace is imported at run time
(flows/sim/README.md)."""
