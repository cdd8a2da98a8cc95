// The strict page. Every built page carries the site's Content-Security-Policy
// (src/components/csp.ts) first in its <head>, which allows nothing but its own origin and
// a hash of each inline script the page holds, and no page has an inline event handler.
// In Chromium, served with the headers dist/_headers gives a host (so the policy also
// holds in the engine's worker, which a <meta> policy does not reach), every demo, every
// exercise, a scenario of one's own and the lab console run, the service worker keeps the
// site for reading offline, and every page loads, with no violation seen by the page nor
// reported by the browser.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSDOM } from 'jsdom';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demos } from '../../src/components/demo-list';
import { encodeScenarioLink } from '../../src/components/scenario-link';
import { exercises } from '../../src/exercises';
import { goesOnSource } from '../support/custom-scenarios';
import { firstOutput } from '../support/first-output';
import { builtHeaders, headersFor } from '../support/headers-file';
import { serveStatic, type StaticServer } from '../support/static-server';
import { runSql, waitForEngine } from './console-driver';
import { builtFile, builtPages, distDir, startSite } from './site';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** A policy's directives, each with its sources. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name!, sources]),
  );
}

/** What a page's HTML holds that a policy must allow, or must not contain at all. */
function inlineParts(html: string) {
  const { document } = new JSDOM(html).window;
  const elements = [...document.querySelectorAll('*')];
  return {
    policy: document
      .querySelector('meta[http-equiv="content-security-policy"]')
      ?.getAttribute('content'),
    scripts: [...document.querySelectorAll('script:not([src])')]
      .filter((s) => !/json|speculationrules/.test(s.getAttribute('type') ?? ''))
      .map((s) => s.textContent ?? ''),
    handlers: elements.flatMap((e) =>
      e.getAttributeNames().flatMap((a) => (a.startsWith('on') ? `<${e.localName} ${a}>` : [])),
    ),
    scriptUrls: elements.flatMap((e) =>
      ['href', 'src', 'action'].flatMap((a) =>
        /^\s*javascript:/i.test(e.getAttribute(a) ?? '') ? `<${e.localName} ${a}>` : [],
      ),
    ),
  };
}

describe('every built page', () => {
  const pages = builtPages();

  it('carries one policy, right after <meta charset>, that allows the site itself only', () => {
    const problems: string[] = [];
    for (const page of pages) {
      const html = readFileSync(builtFile(page), 'utf8');
      if (
        !/^<!DOCTYPE html><html[^>]*><head><meta charset="utf-8"><meta http-equiv="content-security-policy"/i.test(
          html,
        )
      ) {
        problems.push(`/${page}: the policy is not first in <head>`);
      }
      const { policy } = inlineParts(html);
      if (!policy) {
        problems.push(`/${page}: no policy`);
        continue;
      }
      const d = directives(policy);
      for (const [name, want] of [
        ['default-src', ["'self'"]],
        ['connect-src', ["'self'"]],
        ['worker-src', ["'self'"]],
        ['img-src', ["'self'"]],
        ['object-src', ["'none'"]],
      ] as const) {
        if (JSON.stringify(d.get(name)) !== JSON.stringify(want)) {
          problems.push(`/${page}: ${name} is ${d.get(name)?.join(' ')}`);
        }
      }
      if (!d.get('script-src')?.includes("'wasm-unsafe-eval'")) {
        problems.push(`/${page}: script-src lacks 'wasm-unsafe-eval'`);
      }
      // Nothing but the site itself, keywords that allow no other origin, and hashes; inline
      // styles, but no inline script (csp.ts says why).
      const allowed = new Set(["'self'", "'none'", "'wasm-unsafe-eval'"]);
      for (const [name, sources] of d) {
        for (const source of sources) {
          const inlineStyle = name === 'style-src' && source === "'unsafe-inline'";
          if (!allowed.has(source) && !inlineStyle && !/^'sha256-[A-Za-z0-9+/]+=*'$/.test(source)) {
            problems.push(`/${page}: ${name} allows ${source}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('has a hash in its policy for each inline script, and no inline event handler', () => {
    const problems: string[] = [];
    let counted = 0;
    for (const page of pages) {
      const parts = inlineParts(readFileSync(builtFile(page), 'utf8'));
      const d = directives(parts.policy ?? '');
      for (const script of parts.scripts) {
        counted += 1;
        if (!d.get('script-src')?.includes(sha256(script))) {
          problems.push(`/${page}: an inline script not in the policy: ${script.slice(0, 60)}`);
        }
      }
      problems.push(...parts.handlers.map((h) => `/${page}: inline event handler ${h}`));
      problems.push(...parts.scriptUrls.map((h) => `/${page}: javascript: URL in ${h}`));
    }
    expect(problems).toEqual([]);
    // The check saw something: the theme script at least, on every page.
    expect(counted).toBeGreaterThanOrEqual(pages.length);
  });
});

/** Starts recording what the policy blocks in every frame of `page`; the result reads and clears it. */
async function recordViolations(page: Page): Promise<() => Promise<string[]>> {
  const logged: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) logged.push(m.text());
  });
  await page.addInitScript(() => {
    const w = window as unknown as { blocked: string[] };
    w.blocked = [];
    document.addEventListener(
      'securitypolicyviolation',
      (e) =>
        w.blocked.push(
          `${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber}) ${e.sample}`,
        ),
      true,
    );
  });
  return async () => {
    const seen = await Promise.all(
      page
        .frames()
        .map((f) =>
          f
            .evaluate(() => (window as unknown as { blocked?: string[] }).blocked?.splice(0) ?? [])
            .catch(() => [] as string[]),
        ),
    );
    return [...seen.flat(), ...logged.splice(0)];
  };
}

/** A report the browser sent (report-uri), in a line. */
function reportLine(body: string): string {
  const r = (JSON.parse(body) as { 'csp-report': Record<string, string | number> })['csp-report'];
  return `${r['document-uri']}: ${r['effective-directive']} blocked ${r['blocked-uri']} (${r['source-file']}:${r['line-number']})`;
}

describe('the strict page in Chromium, served with the headers of dist/_headers', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  // What the browser reports to the host (report-uri). Chromium reports nothing blocked
  // in the engine's worker: there, a policy that is too strict keeps the engine from
  // starting (tried without 'wasm-unsafe-eval'), which the demos' first output would show.
  const reports: string[] = [];
  let metaOnly: StaticServer;

  /** Records what the policy blocks in `page`, and what the browser reports, from now on. */
  async function watch(page: Page) {
    const violations = await recordViolations(page);
    const reportsBefore = reports.length;
    const problems: string[] = [];
    return {
      /** Notes what was blocked since the last look, as seen at `where`. */
      async look(where: string) {
        problems.push(...(await violations()).map((v) => `${where}: ${v}`));
      },
      /** All that was blocked or reported, once reports (which travel on their own) are in. */
      async all() {
        await page.waitForTimeout(1000);
        const reported = reports.slice(reportsBefore).map((r) => `reported: ${reportLine(r)}`);
        return [...problems, ...reported];
      },
    };
  }

  beforeAll(async () => {
    const rules = builtHeaders(join(distDir, '_headers'));
    site = await startSite({
      headers: (path) => {
        const headers = headersFor(rules, path);
        const policies = headers['content-security-policy'];
        if (policies) {
          headers['content-security-policy'] = policies
            .split(', ')
            .map((p) => `${p.replace(/;\s*$/, '')}; report-uri /csp-report`)
            .join(', ');
        }
        return headers;
      },
      onPost: (path, body) => {
        if (path === '/csp-report') reports.push(body);
      },
    });
    metaOnly = await serveStatic(distDir);
  });
  afterAll(async () => {
    await site?.close();
    await metaOnly?.close();
  });

  it('blocks what the policy does not allow, from the <meta> alone', async () => {
    const page = await site.newPage();
    const violations = await recordViolations(page);
    await page.goto(`${metaOnly.url}lab/`, { waitUntil: 'load' });
    const ran = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.injected = true';
      document.head.append(script);
      return (window as unknown as { injected?: boolean }).injected === true;
    });
    expect(ran).toBe(false);
    await expect.poll(async () => (await violations()).join('\n')).toMatch(/script-src-elem/);
    // The theme script, inline, ran under the policy all the same.
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toMatch(/light|dark/);
    await page.close();
  });

  it('runs every demo, every exercise, a scenario of one’s own and the lab console with no violation', async () => {
    const page = await site.newPage();
    const seen = await watch(page);
    for (const { id } of demos) {
      await page.goto(`${site.url}embed/${id}/`);
      await firstOutput(page, page.locator(`[data-demo="${id}"]`).first(), id);
      await seen.look(`embed/${id}/`);
    }
    for (const { id } of exercises) {
      await page.goto(`${site.url}embed/exercise/${id}/`);
      await page
        .locator(`[data-demo="exercise/${id}"][data-engine="ready"][data-checking="no"]`)
        .waitFor({ timeout: 120_000 });
      await seen.look(`embed/exercise/${id}/`);
    }
    const link = await encodeScenarioLink(goesOnSource);
    if (!link.ok) throw new Error('the scenario did not make a link');
    await page.goto(`${site.url}embed/scenario/#${link.fragment}`);
    await firstOutput(page, page.locator('[data-demo="scenario"]').first(), 'scenario');
    await seen.look('embed/scenario/');

    await page.goto(`${site.url}lab/`);
    await waitForEngine(page);
    expect(await runSql(page, "SELECT 'strict' AS page")).toContain('strict');
    // Reading offline under the policy too: the page registers sw.js (an external script),
    // which keeps the site and the engine (README, "Reading offline").
    await page.locator('html[data-offline="engine"]').waitFor({ timeout: 120_000 });
    await seen.look('lab/');
    expect(await seen.all()).toEqual([]);
    await page.close();
  });

  it('loads every built page with no violation', async () => {
    const page = await site.newPage();
    const seen = await watch(page);
    for (const path of builtPages()) {
      await page.goto(`${site.url}${path}`, { waitUntil: 'load' });
      await page.waitForTimeout(200);
      await seen.look(`/${path}`);
    }
    expect(await seen.all()).toEqual([]);
    await page.close();
  });

  it('lets another site frame an embed, but not the site’s other pages', async () => {
    const page = await site.newPage();
    const reportsBefore = reports.length;
    // A course page of another origin (another loopback port).
    const course = await serveStatic(join(distDir, '_astro'));
    try {
      await page.goto(`${course.url}does-not-exist`);
      await page.setContent(
        `<iframe title="embed" src="${site.url}embed/console/"></iframe><iframe title="lab" src="${site.url}lab/"></iframe>`,
      );
      const embed = page.frameLocator('iframe[title="embed"]');
      await embed.locator('[data-demo="console"]').waitFor({ timeout: 60_000 });
      await expect
        .poll(() => reports.slice(reportsBefore).join('\n'), { timeout: 10_000 })
        .toMatch(/frame-ancestors/);
      expect(await page.frameLocator('iframe[title="lab"]').locator('main').count()).toBe(0);
    } finally {
      await course.close();
      await page.close();
    }
  });
});
