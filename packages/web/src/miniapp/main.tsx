import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nProvider } from '../i18n/i18n';
import { RouterProvider } from '../lib/router';
import { MiniApp } from './miniapp';
import '../styles.css';
import './miniapp.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <I18nProvider>
      <RouterProvider>
        <MiniApp />
      </RouterProvider>
    </I18nProvider>
  </StrictMode>,
);
