// A course page of a teacher's, for the browser tests: a blank page that embeds `src` in
// an iframe and keeps every message the embed posts to it.
import type { Frame, Page } from 'playwright-core';

/** A message as an embed posts it. */
export interface EmbedMessage {
  type?: string;
  demo?: string;
  step?: number;
  of?: number;
}

/** Turns `page` into a course page embedding `src`; returns the embed's frame. */
export async function embedOnCoursePage(page: Page, src: string): Promise<Frame> {
  await page.setContent('<!doctype html><title>A course page</title><h1>A course page</h1>');
  await page.evaluate((url) => {
    const w = window as unknown as { messages: unknown[] };
    w.messages = [];
    addEventListener('message', (e) => w.messages.push(e.data));
    const frame = document.createElement('iframe');
    frame.src = url;
    frame.title = 'An embedded demo';
    frame.style.width = '960px';
    frame.style.height = '2400px';
    document.body.append(frame);
  }, src);
  return (await (await page.locator('iframe').elementHandle())!.contentFrame())!;
}

/** Every message the embed has posted so far. */
export function messagesOf(page: Page): Promise<EmbedMessage[]> {
  return page.evaluate(() => (window as unknown as { messages: EmbedMessage[] }).messages);
}

/** Waits until the embed has posted a message of `type` for `demo`. */
export async function messageArrives(page: Page, type: string, demo: string): Promise<void> {
  await page.waitForFunction(
    ([type, demo]) =>
      (window as unknown as { messages: EmbedMessage[] }).messages.some(
        (m) => m?.type === type && m.demo === demo,
      ),
    [type, demo] as const,
    { timeout: 120_000 },
  );
}
