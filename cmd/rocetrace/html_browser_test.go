package main

import (
	"context"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// chromium returns the headless browser of the browser tests
// ($ROCETRACE_CHROMIUM, chromium or chromium-browser), or skips.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ROCETRACE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium: the browser checks of report --html skip")
	return ""
}

// runChromium runs headless chromium with its own profile and returns
// stdout and stderr.
func runChromium(t *testing.T, bin string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--no-first-run",
		"--disable-extensions", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

// probeScript goes right after the page's CSP meta tag: it records errors,
// CSP violations, console.error calls and every resource the page loads,
// sorts the flows table by its third column (packets) twice (descending,
// then ascending), and writes all that as JSON into <pre id="rt-probe">
// for --dump-dom.
const probeScript = `<script>
var rtProbe = {errors: [], sorted: []};
addEventListener("error", function (e) { rtProbe.errors.push("error: " + (e.message || (e.target && (e.target.src || e.target.href)))); }, true);
document.addEventListener("securitypolicyviolation", function (e) { rtProbe.errors.push("csp: " + e.violatedDirective + " " + e.blockedURI); });
var rtErr = console.error;
console.error = function () { rtProbe.errors.push("console: " + Array.prototype.join.call(arguments, " ")); rtErr.apply(console, arguments); };
addEventListener("load", function () {
  var t = document.getElementById("flowtable");
  if (t) {
    var th = t.tHead.rows[0].cells[2];
    th.click(); rtProbe.sorted.push(t.tBodies[0].rows[0].cells[2].getAttribute("data-v"));
    th.click(); rtProbe.sorted.push(t.tBodies[0].rows[0].cells[2].getAttribute("data-v"));
  }
  rtProbe.resources = performance.getEntriesByType("resource").map(function (r) { return r.name; });
  var p = document.createElement("pre"); p.id = "rt-probe"; p.textContent = JSON.stringify(rtProbe);
  document.body.appendChild(p);
});
</script>`

type probeResult struct {
	Errors    []string `json:"errors"`
	Resources []string `json:"resources"`
	Sorted    []string `json:"sorted"`
}

var probeRe = regexp.MustCompile(`(?s)<pre id="rt-probe">(.*?)</pre>`)

// probe loads page (with probeScript injected, extra appended to the
// body) in chromium and returns what the probe saw and the browser's
// console lines on stderr.
func probe(t *testing.T, bin, page, extra string) (probeResult, []string) {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, `<meta http-equiv="Content-Security-Policy"`)
	if i < 0 {
		t.Fatal("no CSP meta tag")
	}
	i += strings.Index(s[i:], ">") + 1
	s = s[:i] + probeScript + s[i:]
	s = strings.Replace(s, "</body>", extra+"</body>", 1)
	path := filepath.Join(t.TempDir(), "probe.html")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut := runChromium(t, bin, "--virtual-time-budget=5000", "--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+path)
	m := probeRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no probe output in the DOM:\n%.2000s\nstderr:\n%s", out, errOut)
	}
	var r probeResult
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &r); err != nil {
		t.Fatalf("probe JSON: %v: %s", err, m[1])
	}
	var console []string
	for _, line := range strings.Split(errOut, "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return r, console
}

// TestHTMLReportInBrowser opens the --html report of every demo capture in
// headless chromium: no error, no CSP violation, no console message and no
// resource loaded; the sort script orders the flows table; and a
// screenshot at 1280 px is kept under out/screenshots/ (git-ignored; CI
// keeps it as an artifact). A control page with one external image proves
// that the probe sees a blocked load.
func TestHTMLReportInBrowser(t *testing.T) {
	bin := chromium(t)
	shots := filepath.Join(testenv.RepoRoot(), "out", "screenshots")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	var first string
	pages := t.TempDir()
	for _, s := range synth.Scenarios() {
		t.Run(s.Name, func(t *testing.T) {
			page := filepath.Join(pages, s.Name+".html")
			capture := filepath.Join(testenv.RepoRoot(), "pcaps", s.Name+synth.Extension(s.Format))
			if code, _, errOut := rt(t, "report", "--html", page, capture); code != 0 {
				t.Fatalf("report --html: exit %d: %s", code, errOut)
			}
			if first == "" {
				first = page
			}
			r, console := probe(t, bin, page, "")
			if len(r.Errors) > 0 || len(r.Resources) > 0 || len(console) > 0 {
				t.Errorf("errors %q, resources %q, console %q", r.Errors, r.Resources, console)
			}
			if len(r.Sorted) == 2 && numLess(r.Sorted[0], r.Sorted[1]) {
				t.Errorf("sorting by packets: first row %s after one click (descending), %s after two (ascending)", r.Sorted[0], r.Sorted[1])
			}
			png := filepath.Join(shots, s.Name+".png")
			runChromium(t, bin, "--screenshot="+png, "--window-size=1280,2000", "file://"+page)
			if st, err := os.Stat(png); err != nil || st.Size() < 10_000 {
				t.Errorf("screenshot %s: %v (%v)", png, st, err)
			}
		})
	}
	t.Run("points", func(t *testing.T) {
		page := filepath.Join(pages, "two_points.html")
		pc := filepath.Join(testenv.RepoRoot(), "pcaps")
		if code, _, errOut := rt(t, "report", "--html", page, "--point", "up="+filepath.Join(pc, "two_points_up.pcap"),
			"--point", "down="+filepath.Join(pc, "two_points_down.pcap")); code != 0 {
			t.Fatalf("report --point --html: exit %d: %s", code, errOut)
		}
		r, console := probe(t, bin, page, "")
		if len(r.Errors) > 0 || len(r.Resources) > 0 || len(console) > 0 {
			t.Errorf("errors %q, resources %q, console %q", r.Errors, r.Resources, console)
		}
		png := filepath.Join(shots, "two_points.png")
		runChromium(t, bin, "--screenshot="+png, "--window-size=1280,2000", "file://"+page)
		if st, err := os.Stat(png); err != nil || st.Size() < 10_000 {
			t.Errorf("screenshot %s: %v (%v)", png, st, err)
		}
	})
	t.Run("control", func(t *testing.T) {
		if first == "" {
			t.Skip("no page")
		}
		r, console := probe(t, bin, first, `<img src="http://127.0.0.1:9/x.png" alt="">`)
		if !strings.Contains(strings.Join(r.Errors, " "), "csp: img-src") || len(console) == 0 {
			t.Errorf("the external image went unnoticed: errors %q, resources %q, console %q", r.Errors, r.Resources, console)
		}
		t.Logf("control: errors %q, console %q", r.Errors, console)
	})
}

// numLess reports whether decimal string a < b (the sort keys of the
// table are integers).
func numLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
