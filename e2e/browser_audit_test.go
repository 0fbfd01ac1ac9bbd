package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// A Lighthouse-style check of the view a page shows, as an accessibility
// audit runs it (Lighthouse's "errors-in-console", "color-contrast",
// "tabindex", "button-name", "label" and focus audits): no error in the
// console (but the one known CSP message, knownCSPError), text at WCAG AA
// contrast against what is behind it, every control named, no positive
// tabindex, and Tab moving through the controls in the order they are
// read, each with a visible focus ring.

// contrastJS lists the text whose contrast is under WCAG AA (4.5:1, 3:1
// for large text) against its background, blended through the layers
// behind it. Disabled controls are exempt (WCAG 1.4.3), and so is SVG text
// (a chart's labels; every chart has a table with the same numbers).
const contrastJS = `(() => {
  const parse = (c) => { const m = /rgba?\(([^)]+)\)/.exec(c || ''); if (!m) return null; const p = m[1].split(',').map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
  const over = (t, b) => ({ r: t.r * t.a + b.r * (1 - t.a), g: t.g * t.a + b.g * (1 - t.a), b: t.b * t.a + b.b * (1 - t.a), a: 1 });
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const behind = (el) => { const layers = []; for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; } } let bg = { r: 255, g: 255, b: 255, a: 1 }; for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg); return bg; };
  const bad = [];
  const seen = new Set();
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const el = walk.currentNode.parentElement;
    if (!el || seen.has(el) || walk.currentNode.textContent.trim() === '') continue;
    seen.add(el);
    if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) || el.closest('svg, :disabled, option, [aria-disabled=true]')) continue;
    const cs = getComputedStyle(el);
    const bg = behind(el);
    const fg = over(parse(cs.color), bg);
    const l1 = lum(fg), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(cs.fontSize);
    const large = size >= 24 || (Number(cs.fontWeight) >= 700 && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) bad.push(ratio.toFixed(2) + ':1 ' + cs.color + ' on ' + JSON.stringify(bg) + ' "' + el.textContent.trim().slice(0, 40) + '" <' + el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + '.' + el.className + '>');
  }
  return bad;
})()`

// namesJS lists the visible controls without an accessible name, and the
// elements with a positive tabindex.
const namesJS = `(() => {
  const bad = [];
  for (const el of document.querySelectorAll('button, input, select, textarea, a[href], summary, [tabindex]')) {
    if (el.tabIndex > 0) bad.push('tabindex ' + el.tabIndex + ' on ' + el.outerHTML.slice(0, 60));
    if (!el.checkVisibility()) continue;
    const label = el.labels && el.labels.length > 0 ? el.labels[0].textContent : '';
    const name = (el.getAttribute('aria-label') || '') + (el.getAttribute('aria-labelledby') || '') + (el.title || '') + label + (el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA' ? (el.placeholder || '') : el.textContent.trim());
    if (name.trim() === '') bad.push('no name: ' + el.outerHTML.slice(0, 80));
  }
  return bad;
})()`

// focusStopJS describes the focused element and whether its focus ring
// shows: an outline (or a box shadow) drawn for :focus-visible.
const focusStopJS = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return { id: '', visible: false, ring: false, key: '' };
  const cs = getComputedStyle(el);
  const ring = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none';
  const r = el.getBoundingClientRect();
  return { id: el.id, visible: el.checkVisibility() && r.width > 0 && r.height > 0, ring, key: el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className ? '.' + String(el.className).split(' ')[0] : '') + ' "' + (el.textContent || el.value || '').trim().slice(0, 30) + '"', top: r.top, left: r.left };
})()`

// fromTheTop puts the keyboard at the top of the page: Chromium starts Tab
// from the last element clicked or focused, so a blank element at the
// body's start takes the focus (and is gone at the next Tab).
const fromTheTop = `(() => {
  let s = document.getElementById('tab-start');
  if (!s) {
    s = document.createElement('span');
    s.id = 'tab-start';
    s.tabIndex = -1;
    s.addEventListener('blur', () => s.remove());
    document.body.prepend(s);
  }
  s.focus();
  return true;
})()`

type focusStop struct {
	ID      string
	Visible bool
	Ring    bool
	Key     string
	Top     float64
	Left    float64
}

// audit checks the view shown; what names it in failures.
func audit(t *testing.T, b *browser, what string) {
	t.Helper()
	t.Run(what+": the console has no errors", func(t *testing.T) {
		if errs := b.consoleErrors(); len(errs) > 0 {
			t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
		}
	})
	t.Run(what+": text has the contrast WCAG AA asks", func(t *testing.T) {
		if bad := eval[[]string](t, b, contrastJS); len(bad) > 0 {
			t.Errorf("%d texts under AA contrast:\n%s", len(bad), strings.Join(bad, "\n"))
		}
	})
	t.Run(what+": every control has a name and no tabindex is positive", func(t *testing.T) {
		if bad := eval[[]string](t, b, namesJS); len(bad) > 0 {
			t.Errorf("%s", strings.Join(bad, "\n"))
		}
	})
	t.Run(what+": Tab moves through the controls in reading order, each with a visible focus ring", func(t *testing.T) {
		// Tab from the top of the page: no focus, and the selection (which
		// Chromium starts sequential navigation from) at the body's start.
		eval[bool](t, b, fromTheTop)
		var stops []focusStop
		for i := 0; i < 14; i++ {
			b.run(t, chromedp.KeyEvent("\t"))
			s := eval[focusStop](t, b, focusStopJS)
			if s.Key == "" || len(stops) > 0 && s.Key == stops[0].Key {
				break // past the end of the page, or round to its start
			}
			stops = append(stops, s)
		}
		if len(stops) < 4 {
			t.Fatalf("Tab reached %d controls: %v", len(stops), stops)
		}
		for i, s := range stops {
			if !s.Visible {
				t.Errorf("stop %d, %s, is not visible", i, s.Key)
			}
			if !s.Ring {
				t.Errorf("stop %d, %s, shows no focus ring", i, s.Key)
			}
		}
		if stops[0].ID != "view-knowledge" {
			t.Errorf("Tab starts at %s, not at the first view button", stops[0].Key)
		}
		// The header's controls come first, left to right, row by row.
		var header []focusStop
		for _, s := range stops {
			if s.Top > 90 {
				break
			}
			header = append(header, s)
		}
		if len(header) < 3 {
			t.Errorf("Tab starts outside the header: %v", keys(stops))
		}
		for i := 1; i < len(header); i++ {
			a, c := header[i-1], header[i]
			if c.Top < a.Top-4 || (c.Top < a.Top+4 && c.Left < a.Left) {
				t.Errorf("Tab goes back from %s to %s", a.Key, c.Key)
			}
		}
		// Shift+Tab goes back the way Tab came.
		eval[bool](t, b, fromTheTop)
		b.run(t, chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"))
		second := eval[focusStop](t, b, focusStopJS)
		b.run(t, chromedp.KeyEvent("\t"), shiftTab())
		if got := eval[focusStop](t, b, focusStopJS); got.Key != second.Key {
			t.Errorf("Tab then Shift+Tab from %s lands on %s", second.Key, got.Key)
		}
	})
}

func keys(stops []focusStop) string {
	var out []string
	for i, s := range stops {
		out = append(out, fmt.Sprintf("%d %s", i, s.Key))
	}
	return strings.Join(out, ", ")
}

// shiftTab presses Shift+Tab as a keyboard does (key, code, virtual key
// code and the Shift modifier).
func shiftTab() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			p := input.DispatchKeyEventParams{Type: typ, Key: "Tab", Code: "Tab", WindowsVirtualKeyCode: 9, NativeVirtualKeyCode: 9, Modifiers: 8}
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, p); err != nil {
				return err
			}
		}
		return nil
	})
}
