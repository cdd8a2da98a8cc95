// `/oembed/<id>.json`: each demo's oEmbed file, written at build time.
import type { APIRoute, GetStaticPaths } from 'astro';
import { demoCatalog } from '../../components/demo-catalog';
import { oembedFor } from '../../components/oembed';

export const getStaticPaths = (async () =>
  (await demoCatalog()).map((demo) => ({
    params: { demo: demo.id },
    props: { demo: { id: demo.id, title: demo.title, embedHeight: demo.embedHeight } },
  }))) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props, site }) => {
  const file = oembedFor(props.demo, site!);
  return new Response(`${JSON.stringify(file, null, 2)}\n`, {
    headers: { 'content-type': 'application/json+oembed' },
  });
};
