// node-redis against folio: JSON.SET/GET and FT.CREATE/SEARCH under RESP2 and RESP3.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, SCHEMA_FIELD_TYPE } from 'redis';
import { startServer } from './server.mjs';

const PRODUCTS = {
  'p:1': { name: 'Red running shoes', category: 'footwear', price: 89.5, tags: ['sport', 'red'] },
  'p:2': { name: 'Blue running shirt', category: 'apparel', price: 35, tags: ['sport', 'blue'] },
  'p:3': { name: 'Leather hiking boots', category: 'footwear', price: 149.99, tags: ['outdoor'] },
};

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

for (const RESP of [2, 3]) {
  describe(`node-redis RESP${RESP}`, () => {
    let client;
    before(async () => {
      client = createClient({ url: server.url, RESP });
      await client.connect();
      for (const name of await client.ft._list()) await client.ft.dropIndex(name);
      await client.flushAll();
    });
    after(async () => {
      await client.quit();
      assert.ok(server.alive(), 'redis-server died');
    });

    test('json.set / json.get', async () => {
      for (const [key, doc] of Object.entries(PRODUCTS)) {
        assert.equal(await client.json.set(key, '$', doc), 'OK');
      }
      assert.deepEqual(await client.json.get('p:1'), PRODUCTS['p:1']);
      assert.deepEqual(await client.json.get('p:2', { path: '$.price' }), [35]);
      assert.deepEqual(await client.json.get('p:3', { path: '.tags' }), ['outdoor']);
      assert.deepEqual(
        await client.json.get('p:1', { path: ['$.name', '$.price'] }),
        { '$.name': ['Red running shoes'], '$.price': [89.5] },
      );
      assert.equal(await client.json.get('missing'), null);
      assert.equal(await client.json.set('p:1', '$', {}, { condition: 'NX' }), null);
      assert.deepEqual(await client.json.numIncrBy('p:2', '$.price', 5), [40]);
      assert.deepEqual(await client.json.arrAppend('p:2', '$.tags', 'sale'), [3]);
      assert.deepEqual(await client.json.mGet(['p:1', 'p:2', 'missing'], '$.category'),
        [['footwear'], ['apparel'], null]);
      assert.deepEqual(await client.json.type('p:1', { path: '$.price' }), ['number']);
    });

    test('ft.create / ft.search', async () => {
      assert.equal(await client.ft.create('idx:products', {
        '$.name': { type: SCHEMA_FIELD_TYPE.TEXT, AS: 'name', SORTABLE: true },
        '$.category': { type: SCHEMA_FIELD_TYPE.TAG, AS: 'category' },
        '$.price': { type: SCHEMA_FIELD_TYPE.NUMERIC, AS: 'price', SORTABLE: true },
        '$.tags[*]': { type: SCHEMA_FIELD_TYPE.TAG, AS: 'tags' },
      }, { ON: 'JSON', PREFIX: 'p:' }), 'OK');

      const all = await client.ft.search('idx:products', '*', { SORTBY: { BY: 'price', DIRECTION: 'ASC' } });
      assert.equal(all.total, 3);
      assert.deepEqual(all.documents.map((d) => d.id), ['p:2', 'p:1', 'p:3']);
      assert.deepEqual(all.documents[0].value, { ...PRODUCTS['p:2'], price: 40, tags: ['sport', 'blue', 'sale'] });

      const footwear = await client.ft.search('idx:products', '@category:{footwear} @price:[50 100]');
      assert.deepEqual(footwear.documents.map((d) => d.id), ['p:1']);

      const text = await client.ft.search('idx:products', 'running', {
        RETURN: ['name', '$.price'], SORTBY: 'price', LIMIT: { from: 0, size: 10 },
      });
      assert.equal(text.total, 2);
      assert.deepEqual(text.documents.map((d) => [d.id, d.value.name, Number(d.value['$.price'])]),
        [['p:2', 'Blue running shirt', 40], ['p:1', 'Red running shoes', 89.5]]);

      const params = await client.ft.search('idx:products', '@tags:{$t}', { PARAMS: { t: 'sale' }, DIALECT: 2 });
      assert.deepEqual(params.documents.map((d) => d.id), ['p:2']);

      const none = await client.ft.search('idx:products', '@category:{nothing}');
      assert.deepEqual([none.total, none.documents], [0, []]);
    });
  });
}
