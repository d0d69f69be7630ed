// Package browsertest tests package approvalweb's page in a real headless
// Chromium, driven from Go with chromedp, as a person would use it: it
// opens the page, sees an approval appear while the agent waits, reads
// the diff, answers, and checks what the agent got. It is a module of its
// own so that chromedp stays out of the root module's dependencies.
//
// The tests need Debian's chromium (apt-get install chromium). Without
// it they skip and the package fails at the end, naming them and the
// command (tooltest.Need and tooltest.Main; TOOLBELT_ALLOW_SKIP lets them
// skip); under CI=true or TOOLBELT_REQUIRE_CHROMIUM they fail at once.
package browsertest
