// An approximation of how the LINE app draws a Flex Message (bubble, carousel, box, text, span,
// separator, spacer, filler, button, image, icon), from its JSON. Text goes in through textContent only.
(function () {
  const SIZE = { xxs: 11, xs: 13, sm: 14, md: 16, lg: 19, xl: 22, xxl: 29, '3xl': 35, '4xl': 48, '5xl': 74 };
  const SPACE = { none: 0, xs: 2, sm: 4, md: 8, lg: 12, xl: 16, xxl: 20 };
  const px = (v, table) => (v === undefined ? undefined : v in table ? `${table[v]}px` : /^\d+(\.\d+)?(px|%)$/.test(v) ? v : undefined);
  const el = (tag, cls) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    return e;
  };

  function common(e, c, parent) {
    if (c.flex !== undefined) e.style.flex = String(c.flex);
    else if (parent && parent.layout !== 'vertical') e.style.flex = '1';
    if (c.margin && parent) e.style[parent.layout === 'vertical' ? 'marginTop' : 'marginLeft'] = px(c.margin, SPACE) || '0';
    if (c.backgroundColor) e.style.backgroundColor = c.backgroundColor;
    for (const side of ['All', 'Top', 'Bottom', 'Start', 'End']) {
      const v = px(c[`padding${side}`], SPACE);
      if (!v) continue;
      if (side === 'All') e.style.padding = v;
      else e.style[{ Top: 'paddingTop', Bottom: 'paddingBottom', Start: 'paddingLeft', End: 'paddingRight' }[side]] = v;
    }
    if (c.cornerRadius) e.style.borderRadius = px(c.cornerRadius, SPACE) || c.cornerRadius;
    if (c.borderWidth && c.borderColor)
      e.style.border = `${c.borderWidth === 'light' ? '0.5px' : c.borderWidth === 'normal' ? '1px' : c.borderWidth === 'medium' ? '2px' : c.borderWidth === 'semi-bold' ? '3px' : c.borderWidth === 'bold' ? '4px' : c.borderWidth} solid ${c.borderColor}`;
    if (c.width) e.style.width = c.width;
    if (c.height) e.style.height = c.height;
    if (c.align) e.style.textAlign = c.align;
  }

  function component(c, parent, index) {
    let e;
    switch (c.type) {
      case 'box': {
        e = el('div', `fx-box fx-${c.layout || 'vertical'}`);
        const gap = px(c.spacing, SPACE);
        if (c.justifyContent) e.style.justifyContent = c.justifyContent;
        if (c.alignItems) e.style.alignItems = c.alignItems;
        (c.contents || []).forEach((child, i) => {
          const ce = component(child, c, i);
          if (gap && i > 0 && !child.margin) ce.style[c.layout === 'vertical' ? 'marginTop' : 'marginLeft'] = gap;
          e.appendChild(ce);
        });
        break;
      }
      case 'text': {
        e = el('div', `fx-text ${c.wrap ? 'fx-wrap' : 'fx-nowrap'}`);
        e.style.fontSize = px(c.size || 'md', SIZE) || '16px';
        if (c.weight === 'bold') e.style.fontWeight = '700';
        if (c.color) e.style.color = c.color;
        if (c.decoration === 'line-through') e.style.textDecoration = 'line-through';
        if (c.style === 'italic') e.style.fontStyle = 'italic';
        if (Array.isArray(c.contents) && c.contents.length) {
          for (const span of c.contents) {
            const s = el('span');
            s.textContent = span.text || '';
            if (span.color) s.style.color = span.color;
            if (span.weight === 'bold') s.style.fontWeight = '700';
            if (span.size) s.style.fontSize = px(span.size, SIZE) || '';
            e.appendChild(s);
          }
        } else e.textContent = c.text || '';
        if (c.maxLines) {
          e.style.display = '-webkit-box';
          e.style.webkitLineClamp = String(c.maxLines);
          e.style.webkitBoxOrient = 'vertical';
          e.style.overflow = 'hidden';
        }
        break;
      }
      case 'separator':
        e = el('hr', 'fx-sep');
        if (c.color) e.style.borderTopColor = c.color;
        break;
      case 'spacer':
        e = el('div');
        e.style.height = px(c.size || 'md', SPACE) || '8px';
        break;
      case 'filler':
        e = el('div');
        e.style.flex = String(c.flex ?? 1);
        break;
      case 'button': {
        e = el('button', 'fx-button');
        e.type = 'button';
        e.textContent = (c.action && c.action.label) || '';
        const primary = c.style === 'primary';
        e.style.background = c.color || (primary ? '#17c950' : c.style === 'secondary' ? '#dcdfe5' : 'transparent');
        e.style.color = primary ? '#fff' : c.style === 'secondary' ? '#111' : c.color || '#42659a';
        e.dataset.action = JSON.stringify(c.action || {});
        break;
      }
      case 'image':
      case 'icon':
        e = el('img', c.type === 'image' ? 'fx-image' : '');
        e.alt = '';
        if (/^https?:\/\//.test(c.url || '')) e.src = c.url;
        if (c.type === 'icon') e.style.width = e.style.height = px(c.size || 'md', SIZE) || '16px';
        break;
      default:
        e = el('div');
        e.textContent = `[${c.type}]`;
    }
    common(e, c, parent, index);
    return e;
  }

  function bubble(b) {
    const e = el('div', 'fx-bubble');
    for (const part of ['header', 'hero', 'body', 'footer']) {
      const c = b[part];
      if (!c) continue;
      const wrap = el('div', `fx-${part}`);
      if (part !== 'hero') wrap.style.padding = '16px 20px';
      const styles = (b.styles && b.styles[part]) || {};
      if (styles.backgroundColor) wrap.style.backgroundColor = styles.backgroundColor;
      if (styles.separator) wrap.style.borderTop = `1px solid ${styles.separatorColor || '#e5e5e5'}`;
      const inner = component(c, null, 0);
      if (c.paddingAll !== undefined) wrap.style.padding = '0';
      wrap.appendChild(inner);
      e.appendChild(wrap);
    }
    return e;
  }

  window.renderFlex = function (contents) {
    if (contents && contents.type === 'carousel') {
      const c = el('div', 'fx-carousel');
      for (const b of contents.contents || []) c.appendChild(bubble(b));
      return c;
    }
    return bubble(contents || {});
  };
})();
